package agentdef

import (
	"strings"
)

// resolveNames resolves tool and skill names (unknown ones are dropped
// with a warning), the stages' tool configs, the enabled set, the default
// tool choice and the runtime prompts.
func (b *agentBuilder) resolveNames() {
	f, a := b.f, &b.a
	a.ToolConfig = b.tools(f.ToolConfig, "toolConfig")
	seen := map[string]bool{}
	collect := func(c ToolConfig) {
		for _, n := range c.Names() {
			if !seen[n] {
				seen[n] = true
				a.Tools = append(a.Tools, n)
			}
		}
	}
	collect(a.ToolConfig)
	for _, s := range b.srcs {
		if tc := s.file.ToolConfig; tc.Set {
			s.dst.ToolConfig = b.tools(tc, s.path+".toolConfig")
		} else {
			s.dst.ToolConfig = a.ToolConfig
		}
		collect(s.dst.ToolConfig)
	}
	a.Skills = b.skills()
	if a.ToolChoice == "" {
		a.ToolChoice = DefaultToolChoice(a.Mode, a.Plain != nil && !a.Plain.ToolConfig.Empty())
	}
	a.RuntimePrompts = runtimePrompts(f.RuntimePrompts)
	if a.Protocol != nil && a.Protocol.Guard != nil {
		for _, name := range a.Protocol.Guard.Tools {
			if !seen[name] {
				b.warn("protocol.guard.tools", "%q is not a tool of this agent; the guard never applies to it", name)
			}
		}
	}
	if a.Protocol != nil {
		for _, name := range a.Protocol.Approval.ConfirmTools {
			if !seen[name] {
				b.warn("protocol.approval.confirmTools", "%q is not a tool of this agent; no call of it can need confirmation", name)
			}
		}
	}
}

// tools filters a tool config as written: names are lowercased and
// de-duplicated, unknown ones dropped. null or not written: no tools.
func (b *agentBuilder) tools(tc opt[toolConfigFile], path string) ToolConfig {
	var out ToolConfig
	if tc.Null {
		return out
	}
	lists := []struct {
		name string
		kind ToolKind
		src  []string
		dst  *[]string
	}{
		{"backends", ToolBackend, tc.V.Backends, &out.Backends},
		{"frontends", ToolFrontend, tc.V.Frontends, &out.Frontends},
		{"actions", ToolAction, tc.V.Actions, &out.Actions},
		{"latents", ToolLatent, tc.V.Latents, &out.Latents},
		{"delegates", ToolDelegate, tc.V.Delegates, &out.Delegates},
	}
	seen := map[string]bool{}
	for _, l := range lists {
		for i, raw := range l.src {
			name, field := strings.ToLower(strings.TrimSpace(raw)), indexPath(joinPath(path, l.name), i)
			if !b.knownTool(name, l.kind, field) || seen[name] {
				continue
			}
			seen[name] = true
			*l.dst = append(*l.dst, name)
		}
	}
	return out
}

// knownTool reports whether an agent may use the tool name, warning when
// it may not (and when it is listed under the wrong kind).
func (b *agentBuilder) knownTool(name string, listed ToolKind, field string) bool {
	if isPlanTool(name) {
		if b.a.Mode != ModePlanExecute {
			b.warn(field, "plan tool %q exists only in PLAN_EXECUTE agents; dropped", name)
			return false
		}
		return true
	}
	kind, ok := b.env.tools[name]
	switch {
	case name == "":
		b.warn(field, "blank tool name; dropped")
		return false
	case !ok:
		b.warn(field, "unknown tool %q; dropped", name)
		return false
	case (kind == ToolLatent || kind == ToolDelegate) && b.f.Protocol == nil:
		b.warn(field, "%q is a %s tool: only protocol agents (with a protocol block) can use it; dropped", name, kind)
		return false
	case kind != listed:
		b.warn(field, "%q is a %s tool, listed with the %s tools; kept", name, kind, listed)
	}
	return true
}

// skills merges skillConfig.skills and skills: lowercased, de-duplicated,
// unknown ids dropped with a warning.
func (b *agentBuilder) skills() []string {
	var out []string
	seen := map[string]bool{}
	add := func(ids []string, path string) {
		for i, raw := range ids {
			id, field := strings.ToLower(strings.TrimSpace(raw)), indexPath(path, i)
			switch {
			case id == "":
				b.warn(field, "blank skill id; dropped")
			case !b.env.skills[id]:
				b.warn(field, "unknown skill %q; dropped", id)
			case !seen[id]:
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	add(b.f.SkillConfig.Skills, "skillConfig.skills")
	add(b.f.Skills, "skills")
	return out
}

func isPlanTool(name string) bool {
	return name == PlanAddTasks || name == PlanUpdateTask || name == PlanGetTasks
}

// runtimePrompts fills the blank runtime prompts with the defaults.
func runtimePrompts(f runtimePromptsFile) RuntimePrompts {
	rp := DefaultRuntimePrompts()
	for _, x := range []struct {
		v   string
		dst *string
	}{
		{f.PlanExecute.TaskExecutionPromptTemplate, &rp.TaskExecutionPromptTemplate},
		{f.Skill.CatalogHeader, &rp.CatalogHeader},
		{f.Skill.DisclosureHeader, &rp.DisclosureHeader},
		{f.Skill.InstructionsLabel, &rp.InstructionsLabel},
		{f.ToolAppendix.ToolDescriptionTitle, &rp.ToolDescriptionTitle},
		{f.ToolAppendix.AfterCallHintTitle, &rp.AfterCallHintTitle},
	} {
		if strings.TrimSpace(x.v) != "" {
			*x.dst = x.v
		}
	}
	return rp
}
