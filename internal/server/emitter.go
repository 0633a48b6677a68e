package server

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/engine"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/tool"
)

// The Assembler is the engine's Emitter: the engine says what happens, the
// assembler applies the § 3.3 ordering rules and assigns the wire ids.
var _ engine.Emitter = (*Assembler)(nil)

// Reasoning streams one reasoning delta (rules 2 and 3).
func (a *Assembler) Reasoning(delta string) {
	if !a.ended {
		a.text(api.TypeReasoningDelta, delta)
	}
}

// Content streams one content delta (rules 2 and 3).
func (a *Assembler) Content(delta string) {
	if !a.ended {
		a.text(api.TypeContentDelta, delta)
	}
}

// CallStart opens a tool or action call (rule 4): tool.start with the
// frontend fields, or action.start for an action.
func (a *Assembler) CallStart(c engine.Call) {
	if a.ended {
		return
	}
	a.closeBlock()
	if c.ID == "" || a.byID[c.ID] != nil {
		return
	}
	a.endOpenCalls()
	cl := &call{id: c.ID, name: c.Name, action: c.Kind == engine.CallAction}
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

// CallArgs streams one raw argument fragment.
func (a *Assembler) CallArgs(id, delta string) {
	if !a.ended {
		a.toolArgs(id, delta)
	}
}

// CallEnd ends a call once.
func (a *Assembler) CallEnd(id string) {
	if a.ended {
		return
	}
	a.closeBlock()
	if c := a.byID[id]; c != nil {
		a.endCall(c)
	}
}

// TurnEnd closes what the model turn opened.
func (a *Assembler) TurnEnd() {
	if !a.ended {
		a.endTurn()
	}
}

// Submit emits request.submit for a released frontend wait.
func (a *Assembler) Submit(toolID string, payload json.RawMessage) {
	if a.ended {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	a.send(api.TypeRequestSubmit, api.RequestSubmit{RequestID: a.requestID, ChatID: a.chatID, RunID: a.runID,
		ToolID: toolID, Payload: payload})
}

// DocumentEdit emits document.edit for one applied edit of call toolID.
func (a *Assembler) DocumentEdit(toolID string, e tool.Edit) {
	if !a.ended {
		a.documentEdit(toolID, &e)
	}
}

// ToolProgress emits tool.progress for a call that is known and has no
// result yet (a late report is dropped).
func (a *Assembler) ToolProgress(toolID string, p tool.Progress) {
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

// ToolResult emits the one tool.result of a call.
func (a *Assembler) ToolResult(id, result string) {
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

// ActionResult emits the one action.result of an action call.
func (a *Assembler) ActionResult(id, result string) { a.ToolResult(id, result) }

// actionResult is action.result's value: the parsed JSON when the text
// parses, else the text as a JSON string.
func actionResult(text string) json.RawMessage {
	if json.Valid([]byte(text)) {
		return json.RawMessage(text)
	}
	b, _ := json.Marshal(text) // a string: cannot fail
	return b
}

// PlanUpdate emits plan.update with the full task list.
func (a *Assembler) PlanUpdate(planID string, tasks []api.PlanTask) {
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

// TaskStart emits task.start; start events until the task ends carry its id
// (rule 7). PLAN_EXECUTE fills taskName with the task id.
func (a *Assembler) TaskStart(taskID, description string) {
	if a.ended {
		return
	}
	a.closeBlock()
	a.endOpenCalls()
	a.task = taskID
	a.send(api.TypeTaskStart, api.TaskStart{TaskID: taskID, RunID: a.runID, TaskName: taskID, Description: description})
}

// TaskComplete emits task.complete.
func (a *Assembler) TaskComplete(taskID string) { a.taskEnd(api.TypeTaskComplete, taskID, nil) }

// TaskCancel emits task.cancel.
func (a *Assembler) TaskCancel(taskID string) { a.taskEnd(api.TypeTaskCancel, taskID, nil) }

// TaskFail emits task.fail.
func (a *Assembler) TaskFail(taskID string, e api.TaskError) { a.taskEnd(api.TypeTaskFail, taskID, &e) }

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

// AdvisorSnapshot emits advisor.snapshot (AGENT_PROTOCOL § 5.3). Like every
// event that is not text it closes the open block and ends the open calls;
// the engine emits inline opinions before the turn's first tool.start and a
// consulted opinion before its ConsultAdvisor result.
func (a *Assembler) AdvisorSnapshot(p api.AdvisorSnapshot) {
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

// ScopeRequest emits scope.request after the call's tool.end and before its
// result (AGENT_PROTOCOL § 5.3). The call is p.ToolID, or for a sub-run's
// request the top-level call it runs under (the part of p.ParentToolID
// before the first "/"); a request for a call the stream does not know, or
// one that already has its result, is dropped.
func (a *Assembler) ScopeRequest(p api.ScopeRequest) {
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

// ScopeDecision emits scope.decision before the call's result, with the
// rules of ScopeRequest.
func (a *Assembler) ScopeDecision(p api.ScopeDecision) {
	if !a.scopeEvent(p.ToolID, p.ParentToolID) {
		return
	}
	p.RunID = a.runID
	p.Scopes = nonNil(p.Scopes)
	a.send(api.TypeScopeDecision, p)
}

// ApprovalRequest emits approval.request (edit approval) after the held
// calls' tool.end and before their results. The calls are p.Calls, or for
// a sub-run's request the top-level call it runs under (p.ParentToolID);
// a request none of whose calls the stream knows without a result is
// dropped. toolParams default to {} and previews to null.
func (a *Assembler) ApprovalRequest(p api.ApprovalRequest) {
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

// ApprovalDecision emits approval.decision before the calls' results, with
// the rules of ApprovalRequest.
func (a *Assembler) ApprovalDecision(p api.ApprovalDecision) {
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
