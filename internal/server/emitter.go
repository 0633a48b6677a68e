package server

import (
	"encoding/json"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/tool"
)

// Event maps one event of a run onto the wire: the run says what happens,
// the assembler applies the § 3.3 ordering rules, assigns the wire ids and
// converts the payloads to their wire shapes.
func (a *Assembler) Event(ev agent.Event) {
	switch ev.Type {
	case agent.ReasoningDelta:
		a.reasoning(ev.Delta)
	case agent.ContentDelta:
		a.content(ev.Delta)
	case agent.TurnEnd:
		a.turnEnd()
	case agent.ToolStart:
		a.callStart(*ev.Call)
	case agent.ToolArgs:
		a.callArgs(ev.ToolID, ev.Delta)
	case agent.ToolEnd:
		a.callEnd(ev.ToolID)
	case agent.ToolProgress:
		a.progress(ev.ToolID, *ev.Progress)
	case agent.Submitted:
		a.submit(ev.ToolID, ev.Answer)
	case agent.DocumentEdit:
		a.docEdit(ev.ToolID, *ev.Edit)
	case agent.ToolResult:
		a.result(ev.ToolID, ev.Result.Text)
	case agent.PlanUpdate:
		a.planUpdate(ev.Plan.ID, planTasks(ev.Plan.Tasks))
	case agent.TaskStart:
		a.taskStart(ev.Task.ID, ev.Task.Description)
	case agent.TaskEnd:
		a.taskDone(ev.Task)
	default:
		a.protocolEvent(ev)
	}
}

// Run feeds a run's events to the assembler until the run or the
// assembler ends; it returns the error the run yields before it starts.
func (a *Assembler) Run(seq iter.Seq2[agent.Event, error]) error {
	for ev, err := range seq {
		if err != nil {
			return err
		}
		a.Event(ev)
		if a.Ended() {
			return nil
		}
	}
	return nil
}

// protocolEvent maps the advisor, scope and approval events and the end of
// the run.
func (a *Assembler) protocolEvent(ev agent.Event) {
	switch ev.Type {
	case agent.AdvisorSnapshot:
		a.advisorSnapshot(advisorSnapshot(ev))
	case agent.ScopeRequest:
		a.scopeRequest(scopeRequest(ev.Scope))
	case agent.ScopeDecision:
		a.scopeDecision(scopeDecision(ev))
	case agent.ApprovalRequest:
		a.approvalRequest(approvalRequest(ev.Approval))
	case agent.ApprovalDecision:
		a.approvalDecision(approvalDecision(ev.Approval, ev.Decision))
	case agent.RunComplete:
		a.CompleteLedger(ev.End.FinishReason, wireLedger(ev.End.Ledger))
	case agent.RunError:
		a.Fail(wireError(ev.End.Error))
	}
}

// taskDone emits task.complete, task.cancel or task.fail.
func (a *Assembler) taskDone(t *agent.Task) {
	switch t.Status {
	case agent.TaskCompleted:
		a.taskEnd(api.TypeTaskComplete, t.ID, nil)
	case agent.TaskCanceled:
		a.taskEnd(api.TypeTaskCancel, t.ID, nil)
	default:
		e := api.TaskError{}
		if t.Error != nil {
			e = api.TaskError{Code: t.Error.Code, Message: t.Error.Message}
		}
		a.taskEnd(api.TypeTaskFail, t.ID, &e)
	}
}

// planTasks converts a plan's tasks.
func planTasks(tasks []agent.PlanTask) []api.PlanTask {
	out := make([]api.PlanTask, len(tasks))
	for i, t := range tasks {
		out[i] = api.PlanTask{TaskID: t.TaskID, Description: t.Description, Status: t.Status}
	}
	return out
}

// wireError converts a run's error; none is an internal error.
func wireError(e *agent.ErrorInfo) api.ErrorInfo {
	if e == nil {
		return api.ErrorInfo{Code: api.CodeInternalError, Message: "the run failed without an error"}
	}
	return api.ErrorInfo{Code: e.Code, Message: e.Message, Retriable: e.Retriable}
}

// wireLedger converts a protocol run's ledger; its lists are never null.
func wireLedger(l *protocol.Ledger) *api.Ledger {
	if l == nil {
		return nil
	}
	out := &api.Ledger{Cap: l.Cap, Turns: l.Turns, ModelCalls: l.ModelCalls, Repairs: l.Repairs, ToolCalls: l.ToolCalls,
		Tokens: api.LedgerTokens{Prompt: l.Tokens.Prompt, Completion: l.Tokens.Completion}, ElapsedMs: l.ElapsedMs,
		PendingCalls: []api.PendingCall{}, LastErrors: nonNil(l.LastErrors)}
	for _, c := range l.PendingCalls {
		out.PendingCalls = append(out.PendingCalls, api.PendingCall{ToolID: c.ToolID, Tool: c.Tool, WaitingOn: nonNil(c.WaitingOn)})
	}
	return out
}

// advisorSnapshot converts one opinion: its answer and its votes
// {tool: weight} as JSON objects in the order written.
func advisorSnapshot(ev agent.Event) api.AdvisorSnapshot {
	o := ev.Opinion
	s := api.AdvisorSnapshot{Turn: ev.Turn, AdvisorID: o.ID, Instance: o.Instance, RawCalls: o.RawCalls,
		Consulted: o.Consulted, ParentToolID: ev.ParentToolID}
	s.Opinion = encodeOrdered(o.Answer)
	weights := &agentctx.Object{}
	for _, w := range o.Weights {
		weights.Set(w.Tool, json.Number(strconv.FormatFloat(w.Value, 'f', -1, 64)))
	}
	s.Weights = encodeOrdered(weights)
	for _, w := range o.Warnings {
		s.Warnings = append(s.Warnings, api.Warning{Code: string(w.Code), Message: w.Message})
	}
	return s
}

// encodeOrdered is the compact JSON of an ordered object ({} for nil).
func encodeOrdered(o *agentctx.Object) json.RawMessage {
	if o == nil {
		return json.RawMessage(`{}`)
	}
	b, err := agentctx.Encode(o)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// scopeRequest converts a scope request; the client answers it under
// "scope:<toolId>".
func scopeRequest(req *protocol.ScopeRequest) api.ScopeRequest {
	s := api.ScopeRequest{ToolID: req.ToolID, ToolName: req.Tool, Instance: req.Instance,
		ApprovalID: api.ScopeApprovalPrefix + req.ToolID, Provisioned: slices.Clone(req.Provisioned),
		Scopes: slices.Clone(req.Requested), TimeoutMs: req.Timeout.Milliseconds(), ParentToolID: req.ParentToolID}
	for _, pv := range req.Preview {
		s.Preview = append(s.Preview, api.ScopePreview{Scope: pv.Scope, Bytes: pv.Bytes, Keys: nonNil(pv.Keys)})
	}
	return s
}

// scopeDecision converts a scope decision (the effective grant).
func scopeDecision(ev agent.Event) api.ScopeDecision {
	d := ev.ScopeDecision
	return api.ScopeDecision{ToolID: ev.ToolID, ApprovalID: api.ScopeApprovalPrefix + ev.ToolID, Decision: d.Verdict,
		Scopes: slices.Clone(d.Scopes), Reason: d.Reason, By: d.By, Remember: d.Remember, ParentToolID: ev.ParentToolID}
}

// approvalRequest converts an edit approval request.
func approvalRequest(p *agent.Approval) api.ApprovalRequest {
	out := api.ApprovalRequest{ApprovalID: p.ID, Turn: p.Turn, TimeoutMs: p.Timeout.Milliseconds(),
		ParentToolID: p.ParentToolID}
	for _, c := range p.Calls {
		out.Calls = append(out.Calls, api.ApprovalCall{ToolID: c.ToolID, ToolName: c.ToolName, Instance: c.Instance,
			ToolParams: c.Params, Preview: c.Preview})
	}
	return out
}

// approvalDecision converts the decision of an edit approval.
func approvalDecision(p *agent.Approval, d *protocol.ConfirmDecision) api.ApprovalDecision {
	return api.ApprovalDecision{ApprovalID: p.ID, Decision: d.Verdict, Approved: slices.Clone(d.Approved),
		Denied: slices.Clone(d.Denied), Reason: d.Reason, By: d.By, ParentToolID: p.ParentToolID}
}

// reasoning streams one reasoning delta (rules 2 and 3).
func (a *Assembler) reasoning(delta string) {
	if !a.ended {
		a.text(api.TypeReasoningDelta, delta)
	}
}

// content streams one content delta (rules 2 and 3).
func (a *Assembler) content(delta string) {
	if !a.ended {
		a.text(api.TypeContentDelta, delta)
	}
}

// callStart opens a tool or action call (rule 4): tool.start with the
// frontend fields, or action.start for an action.
func (a *Assembler) callStart(c agent.Call) {
	if a.ended {
		return
	}
	a.closeBlock()
	if c.ID == "" || a.byID[c.ID] != nil {
		return
	}
	a.endOpenCalls()
	cl := &call{id: c.ID, name: c.Name, action: c.Kind == agent.CallAction}
	a.calls = append(a.calls, cl)
	a.byID[c.ID] = cl
	a.turnCall = true
	if cl.action {
		a.send(api.TypeActionStart, api.ActionStart{ActionID: c.ID, RunID: a.runID, TaskID: a.task,
			ActionName: c.Name, Description: c.Description})
		return
	}
	typ := c.ToolType
	if typ == "" {
		typ = api.ToolTypeFunction
	}
	a.send(api.TypeToolStart, api.ToolStart{ToolID: c.ID, RunID: a.runID, TaskID: a.task, ToolName: c.Name,
		ToolType: typ, ToolAPI: c.ToolAPI, ToolParams: objectOrNil(c.ToolParams), Description: c.Description,
		ToolKey: c.ToolKey, ToolTimeout: c.ToolTimeout})
}

// objectOrNil keeps raw only when it is a JSON object (toolParams).
func objectOrNil(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m == nil {
		return nil
	}
	return raw
}

// callArgs streams one raw argument fragment.
func (a *Assembler) callArgs(id, delta string) {
	if !a.ended {
		a.toolArgs(id, delta)
	}
}

// callEnd ends a call once.
func (a *Assembler) callEnd(id string) {
	if a.ended {
		return
	}
	a.closeBlock()
	if c := a.byID[id]; c != nil {
		a.endCall(c)
	}
}

// turnEnd closes what the model turn opened.
func (a *Assembler) turnEnd() {
	if !a.ended {
		a.endTurn()
	}
}

// submit emits request.submit for a released frontend wait.
func (a *Assembler) submit(toolID string, payload json.RawMessage) {
	if a.ended {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	a.send(api.TypeRequestSubmit, api.RequestSubmit{RequestID: a.requestID, ChatID: a.chatID, RunID: a.runID,
		ToolID: toolID, Payload: payload})
}

// docEdit emits document.edit for one applied edit of call toolID.
func (a *Assembler) docEdit(toolID string, e tool.Edit) {
	if !a.ended {
		a.documentEdit(toolID, &e)
	}
}

// progress emits tool.progress for a call that is known and has no
// result yet (a late report is dropped).
func (a *Assembler) progress(toolID string, p tool.Progress) {
	if a.ended {
		return
	}
	c := a.byID[toolID]
	if c == nil || c.result || c.action {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	var data json.RawMessage
	if p.Data != nil {
		if b, err := json.Marshal(p.Data); err == nil {
			data = b
		}
	}
	a.send(api.TypeToolProgress, api.ToolProgress{RunID: a.runID, ToolID: toolID, Kind: p.Kind, Message: p.Message, Data: data})
}

// result emits the one tool.result (or action.result) of a call.
func (a *Assembler) result(id, result string) {
	if a.ended {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	c := a.byID[id]
	if c == nil || c.result {
		return
	}
	c.result = true
	if c.action {
		a.send(api.TypeActionResult, api.ActionResult{ActionID: id, Result: actionResult(result)})
		return
	}
	a.send(api.TypeToolResult, api.ToolResult{ToolID: id, Result: result})
}

// actionResult is action.result's value: the parsed JSON when the text
// parses, else the text as a JSON string.
func actionResult(text string) json.RawMessage {
	if json.Valid([]byte(text)) {
		return json.RawMessage(text)
	}
	b, _ := json.Marshal(text) // a string: cannot fail
	return b
}

// planUpdate emits plan.update with the full task list.
func (a *Assembler) planUpdate(planID string, tasks []api.PlanTask) {
	if a.ended {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	if tasks == nil {
		tasks = []api.PlanTask{}
	}
	a.send(api.TypePlanUpdate, api.PlanUpdate{PlanID: planID, ChatID: a.chatID, Plan: tasks})
}

// taskStart emits task.start; start events until the task ends carry its id
// (rule 7). PLAN_EXECUTE fills taskName with the task id.
func (a *Assembler) taskStart(taskID, description string) {
	if a.ended {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	a.task = taskID
	a.send(api.TypeTaskStart, api.TaskStart{TaskID: taskID, RunID: a.runID, TaskName: taskID, Description: description})
}

func (a *Assembler) taskEnd(typ, taskID string, e *api.TaskError) {
	if a.ended {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	if e != nil {
		a.send(typ, api.TaskFail{TaskID: taskID, Error: *e})
	} else {
		a.send(typ, api.TaskEnd{TaskID: taskID})
	}
	if a.task == taskID {
		a.task = ""
	}
}

// advisorSnapshot emits advisor.snapshot (AGENT_PROTOCOL § 5.3). Like every
// event that is not text it closes the open block and ends the open calls;
// the engine emits inline opinions before the turn's first tool.start and a
// consulted opinion before its ConsultAdvisor result.
func (a *Assembler) advisorSnapshot(p api.AdvisorSnapshot) {
	if a.ended {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	p.RunID = a.runID
	if len(p.Opinion) == 0 {
		p.Opinion = json.RawMessage(`{}`)
	}
	if len(p.Weights) == 0 {
		p.Weights = json.RawMessage(`{}`)
	}
	a.send(api.TypeAdvisorSnapshot, p)
}

// scopeRequest emits scope.request after the call's tool.end and before its
// result (AGENT_PROTOCOL § 5.3). The call is p.ToolID, or for a sub-run's
// request the top-level call it runs under (the part of p.ParentToolID
// before the first "/"); a request for a call the stream does not know, or
// one that already has its result, is dropped.
func (a *Assembler) scopeRequest(p api.ScopeRequest) {
	if !a.scopeEvent(p.ToolID, p.ParentToolID) {
		return
	}
	p.RunID = a.runID
	p.Provisioned, p.Scopes = nonNil(p.Provisioned), nonNil(p.Scopes)
	if p.Preview == nil {
		p.Preview = []api.ScopePreview{}
	}
	a.send(api.TypeScopeRequest, p)
}

// scopeDecision emits scope.decision before the call's result, with the
// rules of ScopeRequest.
func (a *Assembler) scopeDecision(p api.ScopeDecision) {
	if !a.scopeEvent(p.ToolID, p.ParentToolID) {
		return
	}
	p.RunID = a.runID
	p.Scopes = nonNil(p.Scopes)
	a.send(api.TypeScopeDecision, p)
}

// approvalRequest emits approval.request (edit approval) after the held
// calls' tool.end and before their results. The calls are p.Calls, or for
// a sub-run's request the top-level call it runs under (p.ParentToolID);
// a request none of whose calls the stream knows without a result is
// dropped. toolParams default to {} and previews to null.
func (a *Assembler) approvalRequest(p api.ApprovalRequest) {
	ids := make([]string, len(p.Calls))
	for i, c := range p.Calls {
		ids[i] = c.ToolID
	}
	if !a.approvalEvent(ids, p.ParentToolID) {
		return
	}
	p.RunID = a.runID
	for i := range p.Calls {
		c := &p.Calls[i]
		if len(c.ToolParams) == 0 {
			c.ToolParams = json.RawMessage(`{}`)
		}
		if len(c.Preview) == 0 {
			c.Preview = json.RawMessage(`null`)
		}
	}
	if p.Calls == nil {
		p.Calls = []api.ApprovalCall{}
	}
	a.send(api.TypeApprovalRequest, p)
	a.confirmCall(p)
}

// approvalDecision emits approval.decision before the calls' results, with
// the rules of ApprovalRequest.
func (a *Assembler) approvalDecision(p api.ApprovalDecision) {
	if !a.approvalEvent(append(slices.Clone(p.Approved), p.Denied...), p.ParentToolID) {
		return
	}
	p.RunID = a.runID
	p.Approved, p.Denied = nonNil(p.Approved), nonNil(p.Denied)
	a.send(api.TypeApprovalDecision, p)
	a.confirmResult(p)
}

// approvalEvent prepares an approval event of the calls ids (parent: the
// sub-run's parent call): it reports whether the event may be sent (the
// parent, or one of the calls, is known and has no result yet), after
// closing the open block and ending the open calls.
func (a *Assembler) approvalEvent(ids []string, parent string) bool {
	if a.ended {
		return false
	}
	if parent != "" {
		ids = []string{parent}
	}
	open := false
	for _, id := range ids {
		root, _, _ := strings.Cut(id, "/")
		if c := a.byID[root]; c != nil && !c.result {
			open = true
			break
		}
	}
	if !open {
		return false
	}
	a.closeBlock()
	a.endOpenCalls()
	return true
}

// scopeEvent prepares a scope event of call toolID (parent: the sub-run's
// parent call): it reports whether the event may be sent, after closing the
// open block and ending the open calls.
func (a *Assembler) scopeEvent(toolID, parent string) bool {
	if a.ended {
		return false
	}
	root := toolID
	if parent != "" {
		root, _, _ = strings.Cut(parent, "/")
	}
	c := a.byID[root]
	if c == nil || c.result {
		return false
	}
	a.closeBlock()
	a.endOpenCalls()
	return true
}
