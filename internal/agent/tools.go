package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
)

// execute runs the pending calls of the last turn in model order; every
// call gets exactly one result.
func (r *run) execute(ctx context.Context) {
	calls := r.calls
	r.calls = nil
	for i, c := range calls {
		if err := ctx.Err(); err != nil {
			r.skip(calls[i:], "the run was canceled")
			r.fail(ctx, err)
			return
		}
		if r.toolUsed >= r.cfg.MaxToolCalls {
			msg := fmt.Sprintf("Budget exceeded: tool.maxCalls=%d", r.cfg.MaxToolCalls)
			r.skip(calls[i:], msg)
			r.end(Limit, CodeBudget, msg, false)
			return
		}
		r.toolUsed++
		if err := r.call(ctx, c); err != nil {
			r.skip(calls[i+1:], "an earlier call failed")
			r.fail(ctx, err)
			return
		}
	}
	r.phase = phaseModel
	if r.step >= r.cfg.MaxSteps {
		r.phase, r.outOfSteps = phaseFinal, true
	}
}

// call runs one tool call and records its result.
func (r *run) call(ctx context.Context, c llm.ToolCall) error {
	ctx = tool.WithReporter(ctx, func(p tool.Progress) {
		pp := p
		r.emit(Event{Type: ToolProgress, ToolID: c.ID, ToolName: c.Name, Progress: &pp})
	})
	var res tool.Result
	var err error
	if r.cfg.Tools == nil {
		res = tool.Errorf("tool_not_enabled", "There are no tools in this conversation; answer in text.")
	} else {
		res, err = r.cfg.Tools.Call(ctx, c.Name, json.RawMessage(c.Arguments))
	}
	if err != nil {
		res = tool.Errorf("tool_failed", "%s failed: %v", c.Name, err)
	}
	for i := range res.Edits {
		e := res.Edits[i]
		r.emit(Event{Type: DocumentEdit, ToolID: c.ID, ToolName: c.Name, Edit: &e})
	}
	rr := res
	r.emit(Event{Type: ToolResult, ToolID: c.ID, ToolName: c.Name, Result: &rr})
	r.addMessage(llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: res.Text})
	return err
}

// skip gives calls that will not run their error result.
func (r *run) skip(calls []llm.ToolCall, why string) {
	for _, c := range calls {
		res := tool.Errorf("skipped", "not executed: %s", why)
		r.emit(Event{Type: ToolResult, ToolID: c.ID, ToolName: c.Name, Result: &res})
		r.addMessage(llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: res.Text})
	}
}
