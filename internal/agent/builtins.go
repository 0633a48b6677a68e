package agent

import (
	"context"
	"encoding/json"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/tool"
)

// Builtins returns descriptors of the engine's own backend tools (the plan
// tools and _skill_run_script_) for listings (/tools) and for the
// definition loader's set of implemented backend names. They run only
// inside a run: calling a descriptor returns an error result.
func Builtins() []tool.Tool {
	return []tool.Tool{
		descriptor{planBuiltins[agentdef.PlanAddTasks]},
		descriptor{planBuiltins[agentdef.PlanUpdateTask]},
		descriptor{planBuiltins[agentdef.PlanGetTasks]},
		descriptor{skillBuiltin},
	}
}

// descriptor exposes a builtin as a tool.Tool.
type descriptor struct{ b *builtin }

func (d descriptor) Name() string                { return d.b.name }
func (d descriptor) Description() string         { return d.b.desc }
func (d descriptor) Parameters() json.RawMessage { return d.b.params }

// Call reports that the tool runs only inside an engine run.
func (d descriptor) Call(context.Context, json.RawMessage) (tool.Result, error) {
	return tool.Errorf(ToolCodeNotEnabled, "%s runs only inside an agent run", d.b.name), nil
}
