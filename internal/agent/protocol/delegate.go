package protocol

import (
	"cmp"
	"context"
	"fmt"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// delegate runs a delegated call as a sub-run (§4.6). view is the scoped
// view of the parent (the parent's entire contribution, DG2); the child's
// output becomes the call's result (DG5).
func (r *run) delegate(ctx context.Context, view []agentctx.Message, call *Call, t *Tool, o *outcome) {
	depth := r.depth + 1
	if limit := cmp.Or(r.a.Limits.MaxDelegateDepth, DefaultMaxDelegateDepth); depth > limit {
		o.fail(CodeDelegateDepth, "%s cannot start a sub-run: depth %d exceeds the limit %d", describe(call), depth, limit)
		return
	}
	child, err := r.delegateAgent(t)
	if err != nil {
		o.fail(CodeDelegateFailed, "%s: %v", describe(call), err)
		return
	}
	cr, err := r.tree.newRun(child, call.ToolID, depth, r.budget, true)
	if err != nil {
		o.fail(CodeDelegateFailed, "%s: %v", describe(call), err)
		return
	}
	res, err := cr.run(ctx, subContext(view, call.Args, child.InputSchema))
	o.usage = cr.usage
	o.warnings = append(o.warnings, cr.warnings...)
	if err != nil {
		o.fail(CodeDelegateFailed, "%s: the sub-run of %s failed: %v", describe(call), child.Key, err)
		return
	}
	if !res.HasOutput {
		o.fail(CodeDelegateNoResult, "%s: the sub-run of %s ended without output (%s)", describe(call), child.Key, res.FinishReason)
		o.err.Details = agentctx.NewObject("ledger", res.Ledger)
		return
	}
	r.applyResult(call, Result{Value: res.Output}, o)
}

// subContext assembles a sub-run's initial messages after its base (DG2):
// the scoped view, then the Input built from the call's parameters with the
// delegate's input schema (omitted when both are empty). None of them
// carries `_instance` (IN5).
func subContext(view []agentctx.Message, args *agentctx.Object, inputSchema any) agentctx.Context {
	c := make(agentctx.Context, 0, len(view)+1)
	for _, m := range view {
		m.Instance = ""
		c = append(c, m)
	}
	if (args == nil || args.Len() == 0) && inputSchema == nil {
		return c
	}
	value := &agentctx.Object{}
	if args != nil {
		value, _ = agentctx.Clone(args).(*agentctx.Object)
	}
	return append(c, agentctx.Message{
		Type: agentctx.TypeInput, Kind: string(agentctx.TypeInput), Value: value, HasValue: true,
		Schema: agentctx.Clone(inputSchema),
	})
}

// delegateAgent returns the agent of a delegated tool: a registered
// protocol agent (normalised by whoever registered it) or the anonymous
// sub-agent of DG4 (no base, the parent's model, no tools, one turn, the
// tool's `_output` or any object as output schema).
func (r *run) delegateAgent(t *Tool) (*Agent, error) {
	if t.Delegate != Anonymous {
		a, ok := r.tree.reg.Agent(t.Delegate)
		if !ok || a == nil {
			return nil, fmt.Errorf("no protocol agent %q is registered", t.Delegate)
		}
		return a, nil
	}
	var schema any = agentctx.NewObject("type", "object")
	if t.HasOutput && t.Output != nil {
		schema = agentctx.Clone(t.Output)
	}
	retries := r.a.RepairRetries
	if retries == 0 {
		retries = -1 // Normalize reads 0 as "default"
	}
	a := &Agent{
		Key: Anonymous, Model: r.a.Model, ResponseFormat: r.a.ResponseFormat,
		ReasoningField: r.a.ReasoningField, ReasoningOff: r.a.ReasoningOff,
		RepairRetries: retries, ErrorWindow: r.a.ErrorWindow, OutputSchema: schema,
		Limits: Limits{MaxTurns: 1}, Approval: r.a.Approval,
	}
	if err := a.Normalize(); err != nil {
		return nil, fmt.Errorf("anonymous sub-agent: %w", err)
	}
	return a, nil
}
