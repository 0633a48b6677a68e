package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
)

// builtin is a backend tool implemented by the engine itself: the plan
// tools (§ 6.5) and _skill_run_script_ (§ 7.2).
type builtin struct {
	name, desc string
	params     json.RawMessage
	// direct builtins run in the run's goroutine without timeout or retry
	// (the plan tools); the others go through the backend executor.
	direct bool
	call   func(ctx context.Context, r *run, args string) (outcome, error)
}

// toolEntry is one tool a turn offers.
type toolEntry struct {
	name    string // lowercase
	kind    agentdef.ToolKind
	def     *agentdef.ToolDef // the tool file's entry, nil for Go tools without one
	impl    tool.Tool         // the Go backend tool (Runner.Backends)
	builtin *builtin          // the engine's own backend tool
	schema  llm.Tool
}

// toolSet is the tools of a turn, in offer order.
type toolSet struct {
	list   []*toolEntry
	byName map[string]*toolEntry
}

func (s *toolSet) empty() bool { return s == nil || len(s.list) == 0 }

func (s *toolSet) get(name string) *toolEntry {
	if s == nil {
		return nil
	}
	return s.byName[lower(name)]
}

// llmTools returns the schemas for the request.
func (s *toolSet) llmTools() []llm.Tool {
	out := make([]llm.Tool, len(s.list))
	for i, t := range s.list {
		out[i] = t.schema
	}
	return out
}

// toolSet resolves tool names; names without a definition or an
// implementation are left out (a call to them is tool_not_enabled).
func (r *run) toolSet(names []string) *toolSet {
	s := &toolSet{byName: map[string]*toolEntry{}}
	for _, n := range names {
		n = lower(n)
		if s.byName[n] != nil {
			continue
		}
		if t := r.resolveTool(n); t != nil {
			s.list = append(s.list, t)
			s.byName[n] = t
		}
	}
	return s
}

// resolveTool finds a tool by lowercase name: frontend and action tools
// from their files; backend tools from the engine's built-ins or the run's
// Go tools, described by their tool file when there is one.
func (r *run) resolveTool(name string) *toolEntry {
	def, hasDef := r.spec.Defs.Tool(name)
	if hasDef && def.Kind != agentdef.ToolBackend {
		return &toolEntry{name: name, kind: def.Kind, def: &def, schema: def.LLMTool()}
	}
	t := &toolEntry{name: name, kind: agentdef.ToolBackend, builtin: r.builtin(name)}
	switch {
	case t.builtin != nil:
		t.schema = llm.Tool{Name: name, Description: t.builtin.desc, Parameters: t.builtin.params}
	case r.backends[name] != nil:
		t.impl = r.backends[name]
		t.schema = llm.Tool{Name: name, Description: t.impl.Description(), Parameters: t.impl.Parameters()}
	default:
		return nil
	}
	if hasDef {
		t.def = &def
		if def.Description != "" {
			t.schema.Description = def.Description
		}
		if len(def.Parameters) > 0 {
			t.schema.Parameters = def.StrippedParameters() // no meta-properties for ordinary agents
		}
	}
	return t
}

// ordinary reports whether the tool is one an agent configures (not a plan
// tool), so it belongs in the tool appendix (§ 6.2 item 4).
func (t *toolEntry) ordinary() bool { return !isPlanTool(t.name) }

// callState is one tool call of a turn, from its start to its result.
type callState struct {
	id    string
	name  string // as the model wrote it
	kind  CallKind
	entry *toolEntry // nil when the tool is not enabled
	args  strings.Builder
	final string // the complete arguments of tool_call_end, if any
	open  bool

	confirm confirmation // edit confirmation (params.confirmEdits)
	offered []string     // not enabled: the tools the turn offers instead
}

// arguments returns the call's complete arguments.
func (c *callState) arguments() string {
	if c.final != "" {
		return c.final
	}
	return c.args.String()
}

// newCall classifies a call by its name against the turn's tools.
func (r *run) newCall(id, name string, tools *toolSet) *callState {
	c := &callState{id: id, name: name, kind: CallUnknown, entry: tools.get(name), open: true}
	if c.entry == nil && tools != nil {
		for _, t := range tools.list {
			c.offered = append(c.offered, t.name)
		}
	}
	if c.entry != nil {
		switch c.entry.kind {
		case agentdef.ToolFrontend:
			c.kind = CallFrontend
		case agentdef.ToolAction:
			c.kind = CallAction
		default:
			c.kind = CallBackend
		}
	}
	return c
}

// wire returns the tool.start / action.start description of c.
func (r *run) wire(c *callState) Call {
	w := Call{ID: c.id, Name: c.name, Kind: c.kind, ToolType: ToolTypeFunction}
	if c.entry == nil || c.entry.def == nil {
		return w
	}
	def := c.entry.def
	w.Description, w.ToolAPI = def.Description, toolAPI(def.ToolAPI)
	switch c.kind {
	case CallFrontend:
		w.ToolType, w.ToolKey = ToolTypeHTML, def.ViewportKey
		if vp, ok := r.spec.Defs.Viewport(def.ViewportKey); ok && vp.Kind == agentdef.ViewportQLC {
			w.ToolType = ToolTypeQLC
		}
		w.ToolTimeout = r.e.frontendTimeout().Milliseconds()
	case CallAction:
		w.ToolType = ""
	}
	return w
}

// toolAPI renders a tool file's toolApi: a JSON string as its text, any
// other JSON value as written.
func toolAPI(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
