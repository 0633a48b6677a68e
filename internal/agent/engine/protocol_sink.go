package engine

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
)

// sink maps the runtime's events onto the stream and chat memory
// (AGENT_PROTOCOL §§ 5.3, 5.5, DG6). The runtime calls it serialised; the
// events of a sub-run (Depth > 0) are advisor.snapshot, scope.* and the
// steps, forwarded with their parent tool id.
func (p *protoRun) sink(ev protocol.Event) {
	switch ev.Type {
	case protocol.EvStep:
		p.saveStep(ev)
		return
	case protocol.EvContext:
		if ev.Depth == 0 {
			p.saveContext(ev.Turn, ev.Context)
		}
		return
	case protocol.EvAdvisorSnapshot:
		p.advisorSnapshot(ev)
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
		p.em.do(func(em Emitter) {
			if p.inTurn {
				em.TurnEnd()
			}
		})
		p.turn, p.inTurn = ev.Turn, true
	case protocol.EvReasoning:
		p.em.do(func(em Emitter) { em.Reasoning(ev.Text) })
	case protocol.EvToolStart:
		p.toolStart(ev)
	case protocol.EvToolResult:
		text := resultText(ev.Result)
		if !ev.OK {
			text = errorResultText(ev)
		}
		p.em.do(func(em Emitter) { em.ToolResult(ev.ToolID, text) })
	case protocol.EvOutput:
		out := ev
		p.output = &out
		p.em.do(func(em Emitter) {
			em.TurnEnd() // the output is its own content block
			em.Content(ev.Text)
			em.TurnEnd()
		})
		p.inTurn = false
	}
}

// toolStart opens one call on the stream: tool.start (action.start for an
// action) with the parameters, one tool.args with their JSON, tool.end. A
// frontend call registers its wait first, so a client answering right
// after tool.end is matched.
func (p *protoRun) toolStart(ev protocol.Event) {
	params := encodeObject(ev.Params)
	c := Call{ID: ev.ToolID, Name: ev.ToolName, Kind: toolKind(ev.FileKind), ToolType: ev.ToolType,
		ToolParams: json.RawMessage(params), Description: ev.Description}
	if c.ToolType == "" {
		c.ToolType = api.ToolTypeFunction
	}
	if def, ok := p.spec.Defs.Tool(ev.ToolName); ok {
		c.ToolAPI = toolAPI(def.ToolAPI)
		if c.Kind == CallFrontend {
			c.ToolType, c.ToolKey = api.ToolTypeHTML, def.ViewportKey
			if vp, ok := p.spec.Defs.Viewport(def.ViewportKey); ok && vp.Kind == agentdef.ViewportQLC {
				c.ToolType = api.ToolTypeQLC
			}
			c.ToolTimeout = p.e.frontendTimeout().Milliseconds()
		}
	}
	if c.Kind == CallFrontend {
		p.waits.open(ev.ToolID, nil)
	}
	p.em.do(func(em Emitter) {
		em.CallStart(c)
		em.CallArgs(c.ID, params)
		em.CallEnd(c.ID)
	})
}

// advisorSnapshot emits one opinion (advisor.snapshot).
func (p *protoRun) advisorSnapshot(ev protocol.Event) {
	o := ev.Opinion
	if o == nil {
		return
	}
	s := api.AdvisorSnapshot{Turn: ev.Turn, AdvisorID: o.ID, Instance: o.Instance, RawCalls: o.RawCalls,
		Consulted: o.Consulted, ParentToolID: ev.ParentToolID}
	s.Opinion = json.RawMessage(encodeObject(o.Answer))
	weights := &agentctx.Object{}
	for _, w := range o.Weights {
		weights.Set(w.Tool, json.Number(strconv.FormatFloat(w.Value, 'f', -1, 64)))
	}
	s.Weights = json.RawMessage(encodeObject(weights))
	for _, w := range o.Warnings {
		s.Warnings = append(s.Warnings, api.Warning{Code: string(w.Code), Message: w.Message})
	}
	p.em.do(func(em Emitter) { em.AdvisorSnapshot(s) })
}

// scopeRequest registers the approval's pending key, then emits
// scope.request (AGENT_PROTOCOL § 5.4 step 1).
func (p *protoRun) scopeRequest(ev protocol.Event) {
	req := ev.Request
	if req == nil {
		return
	}
	p.waits.openScope(*req)
	s := api.ScopeRequest{ToolID: req.ToolID, ToolName: req.Tool, Instance: req.Instance, ApprovalID: approvalID(req.ToolID),
		Provisioned: slices.Clone(req.Provisioned), Scopes: slices.Clone(req.Requested), TimeoutMs: req.Timeout.Milliseconds(),
		ParentToolID: req.ParentToolID}
	for _, pv := range req.Preview {
		s.Preview = append(s.Preview, api.ScopePreview{Scope: pv.Scope, Bytes: pv.Bytes, Keys: nonNilStrings(pv.Keys)})
	}
	p.em.do(func(em Emitter) { em.ScopeRequest(s) })
}

// scopeDecision emits scope.decision with the effective grant.
func (p *protoRun) scopeDecision(ev protocol.Event) {
	d := ev.Decision
	if d == nil {
		return
	}
	s := api.ScopeDecision{ToolID: ev.ToolID, ApprovalID: approvalID(ev.ToolID), Decision: d.Verdict,
		Scopes: slices.Clone(d.Scopes), Reason: d.Reason, By: d.By, Remember: d.Remember, ParentToolID: ev.ParentToolID}
	if s.By == "" {
		s.By = protocol.ByUser
	}
	p.em.do(func(em Emitter) { em.ScopeDecision(s) })
}

// approvalRequest registers the edit approval's pending key, then emits
// approval.request with the held calls, their resolved parameters and
// previews.
func (p *protoRun) approvalRequest(ev protocol.Event) {
	req := ev.Confirm
	if req == nil {
		return
	}
	p.waits.openCalls(*req)
	a := api.ApprovalRequest{ApprovalID: req.ApprovalID, Turn: req.Turn, TimeoutMs: req.Timeout.Milliseconds(),
		ParentToolID: req.ParentToolID, Calls: []api.ApprovalCall{}}
	for _, c := range req.Calls {
		call := api.ApprovalCall{ToolID: c.ToolID, ToolName: c.Tool, Instance: c.Instance,
			ToolParams: json.RawMessage(encodeObject(c.Args)), Preview: json.RawMessage("null")}
		if c.Preview != nil {
			if b, err := agentctx.Encode(c.Preview); err == nil {
				call.Preview = b
			}
		}
		a.Calls = append(a.Calls, call)
	}
	p.em.do(func(em Emitter) { em.ApprovalRequest(a) })
}

// approvalDecision emits approval.decision.
func (p *protoRun) approvalDecision(ev protocol.Event) {
	d, req := ev.Confirmed, ev.Confirm
	if d == nil || req == nil {
		return
	}
	a := api.ApprovalDecision{ApprovalID: req.ApprovalID, Decision: d.Verdict, Approved: nonNilStrings(slices.Clone(d.Approved)),
		Denied: nonNilStrings(slices.Clone(d.Denied)), Reason: d.Reason, By: d.By, ParentToolID: req.ParentToolID}
	if a.By == "" {
		a.By = protocol.ByUser
	}
	p.em.do(func(em Emitter) { em.ApprovalDecision(a) })
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
