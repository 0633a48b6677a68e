package agent

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
)

// sink maps the runtime's events onto the run's events and chat memory
// (AGENT_PROTOCOL §§ 5.3, 5.5, DG6). The runtime calls it serialised; the
// events of a sub-run (Depth > 0) are advisor.snapshot, scope.* and the
// steps, forwarded with their parent tool id.
func (p *protoRun) sink(ctx context.Context, ev protocol.Event) {
	switch ev.Type {
	case protocol.EvStep:
		p.saveStep(ctx, ev)
		return
	case protocol.EvContext:
		if ev.Depth == 0 {
			p.saveContext(ctx, ev.Turn, ev.Context)
		}
		return
	case protocol.EvAdvisorSnapshot:
		if ev.Opinion != nil {
			p.em.emit(Event{Type: AdvisorSnapshot, Turn: ev.Turn, ParentToolID: ev.ParentToolID, Opinion: ev.Opinion})
		}
		return
	case protocol.EvScopeRequest:
		p.scopeRequest(ev)
		return
	case protocol.EvScopeDecision:
		p.scopeDecision(ev)
		return
	case protocol.EvConfirmRequest:
		p.approvalRequest(ev)
		return
	case protocol.EvConfirmDecision:
		p.approvalDecision(ev)
		return
	}
	if ev.Depth > 0 {
		return
	}
	switch ev.Type {
	case protocol.EvTurnStart:
		if p.inTurn {
			p.em.emit(Event{Type: TurnEnd})
		}
		p.turn, p.inTurn = ev.Turn, true
	case protocol.EvReasoning:
		p.em.emit(Event{Type: ReasoningDelta, Delta: ev.Text})
	case protocol.EvToolStart:
		p.toolStart(ev)
	case protocol.EvToolResult:
		res := outcome{text: resultText(ev.Result)}
		if !ev.OK {
			res = errorResult(ev)
		}
		p.em.emit(Event{Type: ToolResult, ToolID: ev.ToolID, Result: &Result{Text: res.text, Error: res.err}})
	case protocol.EvOutput:
		out := ev
		p.output = &out
		// the output is its own content block
		p.em.emit(Event{Type: TurnEnd}, Event{Type: ContentDelta, Delta: ev.Text}, Event{Type: TurnEnd})
		p.inTurn = false
	}
}

// toolStart opens one call on the stream: tool.start with the parameters,
// one tool.args with their JSON, tool.end.
func (p *protoRun) toolStart(ev protocol.Event) {
	params := encodeObject(ev.Params)
	c := Call{ID: ev.ToolID, Name: ev.ToolName, Kind: toolKind(ev.FileKind), ToolType: ev.ToolType,
		ToolParams: json.RawMessage(params), Description: ev.Description}
	if c.ToolType == "" {
		c.ToolType = ToolTypeFunction
	}
	if def, ok := p.spec.Defs.Tool(ev.ToolName); ok {
		c.ToolAPI = toolAPI(def.ToolAPI)
		if c.Kind == CallFrontend {
			c.ToolType, c.ToolKey = ToolTypeHTML, def.ViewportKey
			if vp, ok := p.spec.Defs.Viewport(def.ViewportKey); ok && vp.Kind == agentdef.ViewportQLC {
				c.ToolType = ToolTypeQLC
			}
			c.ToolTimeout = p.e.frontendTimeout().Milliseconds()
		}
	}
	p.em.emit(Event{Type: ToolStart, ToolID: c.ID, Call: &c}, Event{Type: ToolArgs, ToolID: c.ID, Delta: params},
		Event{Type: ToolEnd, ToolID: c.ID})
}

// scopeRequest emits scope.request (AGENT_PROTOCOL § 5.4 step 1).
func (p *protoRun) scopeRequest(ev protocol.Event) {
	req := ev.Request
	if req == nil {
		return
	}
	r := *req
	p.em.emit(Event{Type: ScopeRequest, ToolID: r.ToolID, ParentToolID: r.ParentToolID, Scope: &r})
}

// scopeDecision emits scope.decision with the effective grant.
func (p *protoRun) scopeDecision(ev protocol.Event) {
	if ev.Decision == nil {
		return
	}
	d := *ev.Decision
	if d.By == "" {
		d.By = protocol.ByUser
	}
	p.em.emit(Event{Type: ScopeDecision, ToolID: ev.ToolID, ParentToolID: ev.ParentToolID, ScopeDecision: &d})
}

// approvalRequest emits approval.request with the held calls, their
// resolved parameters and previews.
func (p *protoRun) approvalRequest(ev protocol.Event) {
	if ev.Confirm == nil {
		return
	}
	a := approvalOf(ev.Confirm)
	p.em.emit(Event{Type: ApprovalRequest, ParentToolID: a.ParentToolID, Approval: a})
}

// approvalDecision emits approval.decision.
func (p *protoRun) approvalDecision(ev protocol.Event) {
	d, req := ev.Confirmed, ev.Confirm
	if d == nil || req == nil {
		return
	}
	out := *d
	out.Approved, out.Denied = nonNil(slices.Clone(d.Approved)), nonNil(slices.Clone(d.Denied))
	if out.By == "" {
		out.By = protocol.ByUser
	}
	a := approvalOf(req)
	p.em.emit(Event{Type: ApprovalDecision, ParentToolID: a.ParentToolID, Approval: a, Decision: &out})
}

// approvalOf converts a call confirmation: the calls' resolved parameters
// as JSON, previews as JSON (empty when unknown).
func approvalOf(req *protocol.CallConfirmation) *Approval {
	a := &Approval{ID: req.ApprovalID, Turn: req.Turn, Timeout: req.Timeout, ParentToolID: req.ParentToolID,
		Calls: []ApprovalCall{}}
	for _, c := range req.Calls {
		call := ApprovalCall{ToolID: c.ToolID, ToolName: c.Tool, Instance: c.Instance,
			Params: json.RawMessage(encodeObject(c.Args))}
		if c.Preview != nil {
			if b, err := agentctx.Encode(c.Preview); err == nil {
				call.Preview = b
			}
		}
		a.Calls = append(a.Calls, call)
	}
	return a
}

// nonNil returns s, or an empty slice for nil.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
