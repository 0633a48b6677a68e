package api

import (
	"encoding/json"
	"testing"
)

func TestEventMarshalJSON(t *testing.T) {
	yes := true
	size := int64(0)
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"content delta (§ 3.1 example)",
			ev(7, TypeContentDelta, 1770863186548, ContentDelta{"mtoewf3u_c_1", "Hi"}),
			`{"seq":7,"type":"content.delta","timestamp":1770863186548,"contentId":"mtoewf3u_c_1","delta":"Hi"}`},
		{"pointer payload", ev(1, TypeRunStart, 5, &RunStart{"r1", "c1", "book"}),
			`{"seq":1,"type":"run.start","timestamp":5,"runId":"r1","chatId":"c1","agentKey":"book"}`},
		{"nil payload", ev(2, TypeToolEnd, 5, nil), `{"seq":2,"type":"tool.end","timestamp":5}`},
		{"empty payload", ev(2, TypeTaskComplete, 5, struct{}{}), `{"seq":2,"type":"task.complete","timestamp":5}`},
		{"unicode and html kept, controls escaped",
			ev(3, TypeReasoningDelta, 9, ReasoningDelta{"r_1", "a<b> & \"ü\" 📚\n\t"}),
			`{"seq":3,"type":"reasoning.delta","timestamp":9,"reasoningId":"r_1","delta":"a<b> & \"ü\" 📚\n\t"}`},
		{"tool.start optional fields omitted",
			ev(4, TypeToolStart, 9, ToolStart{ToolID: "call_1", RunID: "r", ToolName: "read", ToolType: ToolTypeFunction}),
			`{"seq":4,"type":"tool.start","timestamp":9,"toolId":"call_1","runId":"r","toolName":"read","toolType":"function"}`},
		{"tool.start frontend",
			ev(4, TypeToolStart, 9, ToolStart{ToolID: "c", RunID: "r", TaskID: "0a1b2c3d", ToolName: "pick", ToolType: ToolTypeHTML,
				ToolParams: json.RawMessage(`{"a": 1}`), ToolKey: "pick", ToolTimeout: 300000}),
			`{"seq":4,"type":"tool.start","timestamp":9,"toolId":"c","runId":"r","taskId":"0a1b2c3d","toolName":"pick","toolType":"html","toolParams":{"a":1},"toolKey":"pick","toolTimeout":300000}`},
		{"tool.args chunkIndex 0 kept", ev(5, TypeToolArgs, 9, ToolArgs{"c", `{"q":`, 0}),
			`{"seq":5,"type":"tool.args","timestamp":9,"toolId":"c","delta":"{\"q\":","chunkIndex":0}`},
		{"tool.result string", ev(6, TypeToolResult, 9, ToolResult{"c", `{"tool":"x","ok":false}`}),
			`{"seq":6,"type":"tool.result","timestamp":9,"toolId":"c","result":"{\"tool\":\"x\",\"ok\":false}"}`},
		{"run.error", ev(8, TypeRunError, 9, RunError{"r", ErrorInfo{Code: CodeModelError, Message: "HTTP 500", Retriable: true}}),
			`{"seq":8,"type":"run.error","timestamp":9,"runId":"r","error":{"code":"model_error","message":"HTTP 500","retriable":true}}`},
		{"run.complete", ev(9, TypeRunComplete, 9, RunComplete{RunID: "r", FinishReason: FinishStop}),
			`{"seq":9,"type":"run.complete","timestamp":9,"runId":"r","finishReason":"stop"}`},
		{"run.complete with ledger (AGENT_PROTOCOL LM5)",
			ev(9, TypeRunComplete, 9, RunComplete{RunID: "r", FinishReason: FinishMaxTurns, Ledger: &Ledger{Cap: "maxTurns", Turns: 3,
				ModelCalls: 4, Repairs: 1, Tokens: LedgerTokens{Prompt: 10, Completion: 2}, PendingCalls: []PendingCall{}, LastErrors: []string{"empty_solution"}}}),
			`{"seq":9,"type":"run.complete","timestamp":9,"runId":"r","finishReason":"max_turns","ledger":{"cap":"maxTurns","turns":3,"modelCalls":4,"repairs":1,"toolCalls":0,"tokens":{"prompt":10,"completion":2},"elapsedMs":0,"pendingCalls":[],"lastErrors":["empty_solution"]}}`},
		{"advisor.snapshot keeps the written order",
			ev(3, TypeAdvisorSnapshot, 9, AdvisorSnapshot{RunID: "r", Turn: 1, AdvisorID: "riskAnalyst",
				Opinion: json.RawMessage(`{"thought":"high"}`), Weights: json.RawMessage(`{"deploy":10,"delay":95}`)}),
			`{"seq":3,"type":"advisor.snapshot","timestamp":9,"runId":"r","turn":1,"advisorId":"riskAnalyst","opinion":{"thought":"high"},"weights":{"deploy":10,"delay":95}}`},
		{"scope.request",
			ev(5, TypeScopeRequest, 9, ScopeRequest{RunID: "r", ToolID: "r_call_1_0", ToolName: "run_cursor_agent", ApprovalID: "scope:r_call_1_0",
				Provisioned: []string{"input"}, Scopes: []string{"characters", "glossary"},
				Preview: []ScopePreview{{Scope: "glossary", Bytes: 12, Keys: []string{"terms"}}}, TimeoutMs: 300000}),
			`{"seq":5,"type":"scope.request","timestamp":9,"runId":"r","toolId":"r_call_1_0","toolName":"run_cursor_agent","approvalId":"scope:r_call_1_0","provisioned":["input"],"scopes":["characters","glossary"],"preview":[{"scope":"glossary","bytes":12,"keys":["terms"]}],"timeoutMs":300000}`},
		{"scope.decision",
			ev(7, TypeScopeDecision, 9, ScopeDecision{RunID: "r", ToolID: "t", ApprovalID: "scope:t", Decision: DecisionNarrow,
				Scopes: []string{"input", "glossary"}, By: "user", Remember: "run", ParentToolID: "p"}),
			`{"seq":7,"type":"scope.decision","timestamp":9,"runId":"r","toolId":"t","approvalId":"scope:t","decision":"narrow","scopes":["input","glossary"],"by":"user","remember":"run","parentToolId":"p"}`},
		{"approval.request",
			ev(8, TypeApprovalRequest, 9, ApprovalRequest{RunID: "r", ApprovalID: "calls:r_call_2_3", Turn: 2,
				Calls: []ApprovalCall{{ToolID: "r_call_2_3", ToolName: "replace_text", Instance: "t1", ToolParams: json.RawMessage(`{"pointer":"41:3.2.p4"}`),
					Preview: json.RawMessage(`{"op":"replace"}`)}, {ToolID: "r_call_2_4", ToolName: "delete_item", ToolParams: json.RawMessage(`{}`)}},
				TimeoutMs: 300000}),
			`{"seq":8,"type":"approval.request","timestamp":9,"runId":"r","approvalId":"calls:r_call_2_3","turn":2,"calls":[{"toolId":"r_call_2_3","toolName":"replace_text","instance":"t1","toolParams":{"pointer":"41:3.2.p4"},"preview":{"op":"replace"}},{"toolId":"r_call_2_4","toolName":"delete_item","toolParams":{},"preview":null}],"timeoutMs":300000}`},
		{"approval.decision",
			ev(9, TypeApprovalDecision, 9, ApprovalDecision{RunID: "r", ApprovalID: "calls:t", Decision: DecisionPartial,
				Approved: []string{"t"}, Denied: []string{"u"}, Reason: "no", By: "user"}),
			`{"seq":9,"type":"approval.decision","timestamp":9,"runId":"r","approvalId":"calls:t","decision":"partial","approved":["t"],"denied":["u"],"reason":"no","by":"user"}`},
		{"document.edit delete", ev(10, TypeDocumentEdit, 9, DocumentEdit{DocumentID: "d", RunID: "r", ToolID: "c", Op: "delete", Pointer: "24:1.p2", Before: "old"}),
			`{"seq":10,"type":"document.edit","timestamp":9,"documentId":"d","runId":"r","toolId":"c","revision":0,"op":"delete","pointer":"24:1.p2","before":"old"}`},
		{"request.query",
			ev(1, TypeRequestQuery, 9, RequestQuery{RequestID: "q", ChatID: "c", Role: "user", Message: "hi",
				References: []Reference{{ID: "f", SizeBytes: &size}}, Params: map[string]json.RawMessage{"b": json.RawMessage(`12345678901234567890`), "a": json.RawMessage(`{"x":[1]}`)},
				Scene: &Scene{URL: "https://x/?a=1&b=2", Title: "T"}, Stream: &yes}),
			`{"seq":1,"type":"request.query","timestamp":9,"requestId":"q","chatId":"c","role":"user","message":"hi","references":[{"id":"f","sizeBytes":0}],"params":{"a":{"x":[1]},"b":12345678901234567890},"scene":{"url":"https://x/?a=1&b=2","title":"T"},"stream":true}`},
		{"chat.start without token", ev(2, TypeChatStart, 9, ChatStart{ChatID: "c", ChatName: "New chat"}),
			`{"seq":2,"type":"chat.start","timestamp":9,"chatId":"c","chatName":"New chat"}`},
		{"plan.update", ev(4, TypePlanUpdate, 9, PlanUpdate{"plan_r", "c", []PlanTask{{"0a1b2c3d", "Read", "init"}}}),
			`{"seq":4,"type":"plan.update","timestamp":9,"planId":"plan_r","chatId":"c","plan":[{"taskId":"0a1b2c3d","description":"Read","status":"init"}]}`},
		{"task.fail", ev(5, TypeTaskFail, 9, TaskFail{"t", TaskError{"task_not_updated", "no change"}}),
			`{"seq":5,"type":"task.fail","timestamp":9,"taskId":"t","error":{"code":"task_not_updated","message":"no change"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.ev.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON: %s", got)
			}
		})
	}
}

func TestEventMarshalJSONRejectsNonObjects(t *testing.T) {
	for _, p := range []any{"text", 3, []int{1}, func() {}} {
		if b, err := (Event{Seq: 1, Type: "x", Payload: p}).MarshalJSON(); err == nil {
			t.Errorf("payload %T: want error, got %s", p, b)
		}
	}
}

func TestEnvelope(t *testing.T) {
	b, err := json.Marshal(Envelope{Code: 400, Msg: "Validation failed", Data: ValidationData{map[string]string{"message": "must not be blank"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"code":400,"msg":"Validation failed","data":{"fields":{"message":"must not be blank"}}}`; string(b) != want {
		t.Errorf("got %s", b)
	}
	b, _ = json.Marshal(Envelope{Code: 0, Msg: MsgSuccess, Data: []int{}})
	if want := `{"code":0,"msg":"success","data":[]}`; string(b) != want {
		t.Errorf("got %s", b)
	}
}

// ev is an event that was not encoded yet.
func ev(seq int64, typ string, ts int64, payload any) Event {
	return Event{Seq: seq, Type: typ, Timestamp: ts, Payload: payload}
}

// An encoded event is sent as it was encoded: its payload is not encoded
// again.
func TestEventEncoded(t *testing.T) {
	e := ev(7, TypeContentDelta, 1, ContentDelta{"c_1", "Hi"})
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	e.Encoded = b
	e.Payload = func() {} // would not encode
	got, err := e.MarshalJSON()
	if err != nil || string(got) != string(b) {
		t.Fatalf("MarshalJSON = %s, %v; want %s", got, err, b)
	}
}
