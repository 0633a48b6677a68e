package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/tool"
)

// wire renders events as "type key=value" lines for compact assertions.
func wire(t *testing.T, events []api.Event) []string {
	t.Helper()
	var out []string
	for _, e := range events {
		b, err := json.Marshal(e.Payload)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		line := e.Type
		for _, k := range []string{"taskId", "toolId", "actionId", "toolType", "toolKey", "result", "code", "error"} {
			if v, ok := m[k]; ok {
				vb, _ := json.Marshal(v)
				line += " " + k + "=" + string(vb)
			}
		}
		out = append(out, line)
	}
	return out
}

func TestEmitterActionFrontendAndTasks(t *testing.T) {
	var got []api.Event
	a := newTestAssembler(&got)
	got = got[:0]
	a.planUpdate("plan_x", []api.PlanTask{{TaskID: "a1b2c3d4", Description: "Read", Status: "init"}})
	a.taskStart("a1b2c3d4", "Read")
	a.content("Working")
	a.callStart(agent.Call{ID: "c1", Name: "highlight", Kind: agent.CallAction})
	a.callArgs("c1", `{"p":1}`)
	a.callStart(agent.Call{ID: "c2", Name: "confirm", Kind: agent.CallFrontend, ToolType: api.ToolTypeHTML,
		ToolKey: "confirm", ToolTimeout: 300000, ToolParams: json.RawMessage(`"not an object"`)})
	a.content("dropped: text after a call in the same turn")
	a.turnEnd()
	a.result("c1", "OK")
	a.submit("c2", json.RawMessage(`{"ok":true}`))
	a.result("c2", `{"ok":true}`)
	a.docEdit("c2", tool.Edit{Book: "doc", Op: "replace", Pointer: "3:1.p1", NewPointer: "3:1.p1", Revision: 7})
	a.taskEnd(api.TypeTaskComplete, "a1b2c3d4", nil)
	a.content("after the task")
	a.turnEnd()
	a.Complete(api.FinishStop)
	want := []string{
		"plan.update",
		`task.start taskId="a1b2c3d4"`,
		`content.start taskId="a1b2c3d4"`,
		"content.delta",
		"content.end",
		`action.start taskId="a1b2c3d4" actionId="c1"`,
		`action.args actionId="c1"`,
		`action.end actionId="c1"`,
		`tool.start taskId="a1b2c3d4" toolId="c2" toolType="html" toolKey="confirm"`,
		`tool.end toolId="c2"`,
		`action.result actionId="c1" result="OK"`,
		`request.submit toolId="c2"`,
		`tool.result toolId="c2" result="{\"ok\":true}"`,
		`document.edit taskId="a1b2c3d4" toolId="c2"`,
		`task.complete taskId="a1b2c3d4"`,
		"content.start",
		"content.delta",
		"content.end",
		"run.complete",
	}
	if g := wire(t, got); !slices.Equal(g, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	var edit api.DocumentEdit
	for _, e := range got {
		if e.Type == api.TypeDocumentEdit {
			edit = e.Payload.(api.DocumentEdit)
		}
		if e.Type == api.TypeRequestSubmit {
			if p := e.Payload.(api.RequestSubmit); p.RequestID != testRun || p.ChatID != testChat || string(p.Payload) != `{"ok":true}` {
				t.Errorf("request.submit = %+v", p)
			}
		}
		if e.Type == api.TypeToolStart && e.Payload.(api.ToolStart).ToolParams != nil {
			t.Errorf("toolParams that is not an object must be omitted")
		}
	}
	// The hook of newTestAssembler wins over the edit's own revision.
	if edit.Revision != 1 || edit.DocumentID == "" {
		t.Errorf("document.edit = %+v", edit)
	}
}

// § 3.5: a failure inside a task closes the block, gives pending calls a
// skipped result, fails the task with the same code, then run.error.
func TestEmitterFailInsideTask(t *testing.T) {
	var got []api.Event
	a := newTestAssembler(&got)
	got = got[:0]
	a.taskStart("t1", "x")
	a.callStart(agent.Call{ID: "c1", Name: "act", Kind: agent.CallAction})
	a.callStart(agent.Call{ID: "c2", Name: "read", Kind: agent.CallBackend})
	a.content("ignored")
	a.Fail(api.ErrorInfo{Code: api.CodeModelError, Message: "boom", Retriable: true})
	a.content("after the end")
	want := []string{
		`task.start taskId="t1"`,
		`action.start taskId="t1" actionId="c1"`,
		`action.end actionId="c1"`,
		`tool.start taskId="t1" toolId="c2" toolType="function"`,
		`tool.end toolId="c2"`,
		`action.result actionId="c1" result={"code":"skipped","error":"not executed: the run failed (model_error)","ok":false,"tool":"act"}`,
		`tool.result toolId="c2" result="{\"tool\":\"read\",\"ok\":false,\"code\":\"skipped\",\"error\":\"not executed: the run failed (model_error)\"}"`,
		`task.fail taskId="t1" error={"code":"model_error","message":"boom"}`,
		`run.error error={"code":"model_error","message":"boom","retriable":true}`,
	}
	if g := wire(t, got); !slices.Equal(g, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}

// AGENT_PROTOCOL § 5.3 (vectors A1, X5): an inline advisor.snapshot closes
// the reasoning block before the first tool.start; scope.request follows
// the call's tool.end, request.submit then scope.decision precede its
// tool.result; scope events of a call that already has its result, or of
// an unknown call, are dropped; a sub-run's events are accepted while their
// top-level call runs; run.complete carries the ledger.
func TestEmitterProtocolEvents(t *testing.T) {
	var got []api.Event
	a := newTestAssembler(&got)
	got = got[:0]
	a.reasoning("weighing")
	a.advisorSnapshot(api.AdvisorSnapshot{Turn: 1, AdvisorID: "editGate", Weights: json.RawMessage(`{"replace_text":12}`)})
	a.callStart(agent.Call{ID: "r_call_1_0", Name: "run_cursor_agent", Kind: agent.CallBackend, ToolType: api.ToolTypeDelegate,
		ToolParams: json.RawMessage(`{"task":"x"}`)})
	a.callArgs("r_call_1_0", `{"task":"x"}`)
	a.scopeRequest(api.ScopeRequest{ToolID: "r_call_1_0", ToolName: "run_cursor_agent", ApprovalID: "scope:r_call_1_0",
		Provisioned: []string{"input"}, Scopes: []string{"characters", "glossary"}, TimeoutMs: 50})
	a.submit("scope:r_call_1_0", json.RawMessage(`{"decision":"narrow","scopes":["glossary"]}`))
	a.scopeDecision(api.ScopeDecision{ToolID: "r_call_1_0", ApprovalID: "scope:r_call_1_0", Decision: api.DecisionNarrow,
		Scopes: []string{"input", "glossary"}, By: "user"})
	a.scopeRequest(api.ScopeRequest{ToolID: "r_call_1_0/1_0", ToolName: "note", ApprovalID: "scope:r_call_1_0/1_0",
		ParentToolID: "r_call_1_0"})
	a.advisorSnapshot(api.AdvisorSnapshot{Turn: 1, AdvisorID: "child", ParentToolID: "r_call_1_0"})
	a.result("r_call_1_0", `{"answer":"ok"}`)
	a.scopeDecision(api.ScopeDecision{ToolID: "r_call_1_0", Decision: api.DecisionApprove}) // after the result: dropped
	a.scopeRequest(api.ScopeRequest{ToolID: "unknown"})                                     // unknown call: dropped
	a.turnEnd()
	a.content(`{"answer":"ok"}`)
	a.turnEnd()
	a.CompleteLedger(api.FinishMaxTurns, &api.Ledger{Cap: "maxTurns", Turns: 3, PendingCalls: []api.PendingCall{}, LastErrors: []string{}})
	want := []string{
		"reasoning.start",
		"reasoning.delta",
		"reasoning.end",
		"advisor.snapshot",
		`tool.start toolId="r_call_1_0" toolType="delegate"`,
		`tool.args toolId="r_call_1_0"`,
		`tool.end toolId="r_call_1_0"`,
		`scope.request toolId="r_call_1_0"`,
		`request.submit toolId="scope:r_call_1_0"`,
		`scope.decision toolId="r_call_1_0"`,
		`scope.request toolId="r_call_1_0/1_0"`,
		"advisor.snapshot",
		`tool.result toolId="r_call_1_0" result="{\"answer\":\"ok\"}"`,
		"content.start",
		"content.delta",
		"content.end",
		"run.complete",
	}
	if g := wire(t, got); !slices.Equal(g, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	var lines []string
	for _, e := range got {
		switch e.Type {
		case api.TypeAdvisorSnapshot, api.TypeScopeRequest, api.TypeScopeDecision, api.TypeRunComplete:
			b, err := e.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(b[strings.Index(string(b), `"runId"`):])) // after seq, type, timestamp
		}
	}
	wantJSON := []string{
		`"runId":"mtoewf3u","turn":1,"advisorId":"editGate","opinion":{},"weights":{"replace_text":12}}`,
		`"runId":"mtoewf3u","toolId":"r_call_1_0","toolName":"run_cursor_agent","approvalId":"scope:r_call_1_0","provisioned":["input"],"scopes":["characters","glossary"],"preview":[],"timeoutMs":50}`,
		`"runId":"mtoewf3u","toolId":"r_call_1_0","approvalId":"scope:r_call_1_0","decision":"narrow","scopes":["input","glossary"],"by":"user"}`,
		`"runId":"mtoewf3u","toolId":"r_call_1_0/1_0","toolName":"note","approvalId":"scope:r_call_1_0/1_0","provisioned":[],"scopes":[],"preview":[],"timeoutMs":0,"parentToolId":"r_call_1_0"}`,
		`"runId":"mtoewf3u","turn":1,"advisorId":"child","opinion":{},"weights":{},"parentToolId":"r_call_1_0"}`,
		`"runId":"mtoewf3u","finishReason":"max_turns","ledger":{"cap":"maxTurns","turns":3,"modelCalls":0,"repairs":0,"toolCalls":0,"tokens":{"prompt":0,"completion":0},"elapsedMs":0,"pendingCalls":[],"lastErrors":[]}}`,
	}
	if !slices.Equal(lines, wantJSON) {
		t.Fatalf("payloads:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(wantJSON, "\n"))
	}
	// Nothing after the terminal event.
	n := len(got)
	a.advisorSnapshot(api.AdvisorSnapshot{AdvisorID: "late"})
	a.CompleteLedger(api.FinishStop, nil)
	if len(got) != n {
		t.Errorf("events after the terminal one: %v", wire(t, got[n:]))
	}
}
