package agentdef

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// keyPattern is the rule of agent keys (§ 1.3), also used for skill ids.
var keyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// agentEnv is what agents are checked against.
type agentEnv struct {
	models ModelLookup
	tools  map[string]ToolKind // every known tool name (files and Go implementations)
	skills map[string]bool
	taken  map[string]string // agent key → the file that has it
	// delegates maps each .delegate tool (and any tool declaring
	// `_delegate`) to the agent key it runs.
	delegates map[string]string
}

// agentBuilder turns one decoded file into an AgentDef.
type agentBuilder struct {
	env  *agentEnv
	path string
	f    *agentFile
	warn func(field, format string, args ...any)
	a    AgentDef
	srcs []stageSrc
}

// stageSrc links a stage as written to the stage being built.
type stageSrc struct {
	path string
	file *stageFile
	dst  *Stage
}

// build checks the file in the order of § 6.1 and returns the agent or the
// first rejection. Tool and skill names are resolved last, so a rejected
// agent gets no warnings about them.
func (b *agentBuilder) build() (AgentDef, error) {
	steps := []func() error{b.identity, b.protocol, b.stages, b.choice, b.budget, b.modelKeys, b.unique}
	for _, step := range steps {
		if err := step(); err != nil {
			return AgentDef{}, err
		}
	}
	b.resolveNames()
	return b.a, nil
}

func (b *agentBuilder) identity() error {
	f, a := b.f, &b.a
	a.File, a.Role, a.Description, a.Icon = b.path, f.Role, f.Description, parseIcon(f.Icon)
	a.Internal = f.Internal
	a.Key = strings.TrimSpace(f.Key)
	if a.Key == "" {
		a.Key = strings.TrimSuffix(filepath.Base(b.path), filepath.Ext(b.path))
		if !keyPattern().MatchString(a.Key) {
			return rejectf("key", "missing, and the file name %q is not a valid key ([A-Za-z0-9_-]{1,64})", a.Key)
		}
	}
	if !keyPattern().MatchString(a.Key) {
		return rejectf("key", "%q is not a valid key ([A-Za-z0-9_-]{1,64})", a.Key)
	}
	if a.Name = strings.TrimSpace(f.Name); a.Name == "" {
		return rejectf("name", "missing")
	}
	a.Mode = Mode(strings.ToUpper(strings.TrimSpace(f.Mode)))
	switch a.Mode {
	case ModeOneshot, ModeReact, ModePlanExecute:
		return nil
	case "":
		return rejectf("mode", "missing (want ONESHOT, REACT or PLAN_EXECUTE)")
	}
	return rejectf("mode", "unknown mode %q (want ONESHOT, REACT or PLAN_EXECUTE)", f.Mode)
}

// stages builds the mode's block: prompts and model configs.
func (b *agentBuilder) stages() error {
	f, a := b.f, &b.a
	top, err := modelConfig(f.ModelConfig, "modelConfig")
	if err != nil {
		return err
	}
	a.ModelConfig = top
	unused := map[string]bool{"plain": f.Plain != nil, "react": f.React != nil, "planExecute": f.PlanExecute != nil}
	switch a.Mode {
	case ModeOneshot:
		a.Plain = &Stage{}
		b.srcs = []stageSrc{{"plain", f.Plain, a.Plain}}
		unused["plain"] = false
	case ModeReact:
		a.React = &ReactBlock{}
		b.srcs = []stageSrc{{"react", f.React, &a.React.Stage}}
		unused["react"] = false
	case ModePlanExecute:
		if f.PlanExecute == nil {
			return rejectf("planExecute", "missing: a PLAN_EXECUTE agent needs planExecute.plan and planExecute.execute")
		}
		pe := f.PlanExecute
		a.PlanExecute = &PlanExecuteBlock{}
		b.srcs = []stageSrc{{"planExecute.plan", pe.Plan, &a.PlanExecute.Plan},
			{"planExecute.execute", pe.Execute, &a.PlanExecute.Execute}}
		if pe.Summary != nil {
			a.PlanExecute.Summary = &Stage{}
			b.srcs = append(b.srcs, stageSrc{"planExecute.summary", pe.Summary, a.PlanExecute.Summary})
		}
		unused["planExecute"] = false
	}
	for _, block := range []string{"plain", "react", "planExecute"} {
		if unused[block] {
			b.warn(block, "not used by mode %s; ignored", a.Mode)
		}
	}
	for _, s := range b.srcs {
		if err := b.stage(s, top); err != nil {
			return err
		}
	}
	return b.maxSteps()
}

func (b *agentBuilder) stage(s stageSrc, top ModelConfig) error {
	if s.file == nil {
		return rejectf(s.path, "missing: mode %s needs it", b.a.Mode)
	}
	isSummary := s.path == "planExecute.summary"
	if strings.TrimSpace(s.file.SystemPrompt) == "" && !isSummary {
		return rejectf(s.path+".systemPrompt", "missing or blank")
	}
	s.dst.SystemPrompt, s.dst.DeepThinking, s.dst.ModelConfig = s.file.SystemPrompt, s.file.DeepThinking, top
	if isSummary && strings.TrimSpace(s.file.SystemPrompt) == "" {
		s.dst.SystemPrompt = b.f.PlanExecute.Execute.SystemPrompt
	}
	if s.file.ModelConfig != nil {
		own, err := modelConfig(s.file.ModelConfig, s.path+".modelConfig")
		if err != nil {
			return err
		}
		if own.ModelKey == "" {
			own.ModelKey = top.ModelKey
		}
		s.dst.ModelConfig = own
	}
	return nil
}

func (b *agentBuilder) maxSteps() error {
	var err error
	switch {
	case b.a.React != nil:
		b.a.React.MaxSteps, err = orDefault(b.f.React.MaxSteps, DefaultReactMaxSteps, "react.maxSteps")
	case b.a.PlanExecute != nil:
		b.a.PlanExecute.MaxSteps, err = orDefault(b.f.PlanExecute.MaxSteps, DefaultPlanExecuteMaxSteps, "planExecute.maxSteps")
	}
	return err
}

// choice checks toolChoice; its default is set in resolveNames, once the
// stage's tools are known. Protocol agents ignore it (AGENT_PROTOCOL § 5.1:
// their tools live in the solution schema), with a warning.
func (b *agentBuilder) choice() error {
	if b.f.Protocol != nil {
		if strings.TrimSpace(b.f.ToolChoice) != "" {
			b.warn("toolChoice", "ignored: protocol agents do not use toolChoice")
		}
		return nil
	}
	tc := ToolChoice(strings.ToUpper(strings.TrimSpace(b.f.ToolChoice)))
	switch tc {
	case "", ToolChoiceAuto, ToolChoiceRequired:
	case ToolChoiceNone:
		if b.a.Mode == ModePlanExecute {
			return rejectf("toolChoice", "NONE is not allowed in PLAN_EXECUTE (its stages must call the plan tools)")
		}
	default:
		return rejectf("toolChoice", "unknown value %q (want NONE, AUTO or REQUIRED)", b.f.ToolChoice)
	}
	b.a.ToolChoice = tc
	return nil
}

func (b *agentBuilder) budget() error {
	d, f := DefaultBudget(b.a.Mode), b.f.Budget
	fields := []struct {
		v, def int
		dst    *int
		field  string
	}{
		{f.RunTimeoutMs, d.RunTimeoutMs, &b.a.Budget.RunTimeoutMs, "budget.runTimeoutMs"},
		{f.Model.MaxCalls, d.Model.MaxCalls, &b.a.Budget.Model.MaxCalls, "budget.model.maxCalls"},
		{f.Model.TimeoutMs, d.Model.TimeoutMs, &b.a.Budget.Model.TimeoutMs, "budget.model.timeoutMs"},
		{f.Model.RetryCount, d.Model.RetryCount, &b.a.Budget.Model.RetryCount, "budget.model.retryCount"},
		{f.Tool.MaxCalls, d.Tool.MaxCalls, &b.a.Budget.Tool.MaxCalls, "budget.tool.maxCalls"},
		{f.Tool.TimeoutMs, d.Tool.TimeoutMs, &b.a.Budget.Tool.TimeoutMs, "budget.tool.timeoutMs"},
		{f.Tool.RetryCount, d.Tool.RetryCount, &b.a.Budget.Tool.RetryCount, "budget.tool.retryCount"},
	}
	for _, x := range fields {
		v, err := orDefault(x.v, x.def, x.field)
		if err != nil {
			return err
		}
		*x.dst = v
	}
	return nil
}

// orDefault returns v, or def when v is 0; a negative v is a rejection.
func orDefault(v, def int, field string) (int, error) {
	switch {
	case v < 0:
		return 0, rejectf(field, "negative (%d)", v)
	case v == 0:
		return def, nil
	}
	return v, nil
}

// modelKeys checks that some modelKey is set, that every written one
// resolves, and that every stage ends up with one.
func (b *agentBuilder) modelKeys() error {
	type given struct{ field, key string }
	var keys []given
	if b.a.ModelConfig.ModelKey != "" {
		keys = append(keys, given{"modelConfig.modelKey", b.a.ModelConfig.ModelKey})
	}
	for _, s := range b.srcs {
		if s.file.ModelConfig != nil && strings.TrimSpace(s.file.ModelConfig.ModelKey) != "" {
			keys = append(keys, given{s.path + ".modelConfig.modelKey", s.dst.ModelConfig.ModelKey})
		}
	}
	if len(keys) == 0 {
		return rejectf("modelConfig.modelKey", "missing: set modelConfig.modelKey at the top level or in a stage")
	}
	for _, g := range keys {
		if b.env.models == nil {
			return rejectf(g.field, "unknown model %q: no model registry", g.key)
		}
		if _, err := b.env.models.Model(g.key); err != nil {
			return rejectf(g.field, "%v", err)
		}
	}
	for _, s := range b.srcs {
		if s.dst.ModelConfig.ModelKey == "" {
			return rejectf(s.path+".modelConfig.modelKey", "missing: this stage has no modelKey and the top level sets none")
		}
	}
	return nil
}

func (b *agentBuilder) unique() error {
	if prev, ok := b.env.taken[b.a.Key]; ok {
		return rejectf("key", "duplicate key %q, already defined by %s (the first file in name order wins)", b.a.Key, prev)
	}
	return nil
}

// modelConfig converts a modelConfig as written; nil is the zero config.
func modelConfig(m *modelConfigFile, path string) (ModelConfig, error) {
	if m == nil {
		return ModelConfig{}, nil
	}
	mc := ModelConfig{ModelKey: strings.TrimSpace(m.ModelKey), Temperature: m.Temperature, TopP: m.TopP, MaxTokens: m.MaxTokens,
		Reasoning: Reasoning{Enabled: m.Reasoning.Enabled, Effort: Effort(strings.ToUpper(strings.TrimSpace(m.Reasoning.Effort)))}}
	switch {
	case !slices.Contains([]Effort{"", EffortLow, EffortMedium, EffortHigh}, mc.Reasoning.Effort):
		return mc, rejectf(path+".reasoning.effort", "unknown value %q (want LOW, MEDIUM or HIGH)", m.Reasoning.Effort)
	case mc.Temperature != nil && (*mc.Temperature < 0 || *mc.Temperature > 2):
		return mc, rejectf(path+".temperature", "%g is outside [0, 2]", *mc.Temperature)
	case mc.TopP != nil && (*mc.TopP < 0 || *mc.TopP > 1):
		return mc, rejectf(path+".top_p", "%g is outside [0, 1]", *mc.TopP)
	case mc.MaxTokens != nil && *mc.MaxTokens <= 0:
		return mc, rejectf(path+".max_tokens", "must be positive, found %d", *mc.MaxTokens)
	}
	return mc, nil
}
