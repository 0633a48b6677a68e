package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/api"
)

// Edit approval (the call confirmation extension): approval.request comes
// after the held calls' tool.end, request.submit then approval.decision
// before their results; toolParams default to {} and previews to null; an
// event whose calls all have their result, or are unknown, is dropped; a
// sub-run's request is accepted while its top-level call runs.
func TestEmitterApprovalEvents(t *testing.T) {
	var got []api.Event
	a := newTestAssembler(&got)
	got = got[:0]
	for _, id := range []string{"r_call_2_0", "r_call_2_1"} {
		a.callStart(agent.Call{ID: id, Name: "replace_text", Kind: agent.CallBackend, ToolParams: json.RawMessage(`{"pointer":"p"}`)})
		a.callArgs(id, `{"pointer":"p"}`)
	}
	a.callStart(agent.Call{ID: "r_call_2_2", Name: "rewrite_paragraph", Kind: agent.CallBackend, ToolType: api.ToolTypeDelegate})
	a.approvalRequest(api.ApprovalRequest{ApprovalID: "calls:r_call_2_0", Turn: 2, TimeoutMs: 300000, Calls: []api.ApprovalCall{
		{ToolID: "r_call_2_0", ToolName: "replace_text", Instance: "t1", ToolParams: json.RawMessage(`{"pointer":"p"}`),
			Preview: json.RawMessage(`{"op":"replace","oldMarkdown":"a","newMarkdown":"b"}`)},
		{ToolID: "r_call_2_1", ToolName: "replace_text"}}})
	a.submit("calls:r_call_2_0", json.RawMessage(`{"decision":"partial","approved":["r_call_2_0"]}`))
	a.approvalDecision(api.ApprovalDecision{ApprovalID: "calls:r_call_2_0", Decision: api.DecisionPartial,
		Approved: []string{"r_call_2_0"}, Denied: []string{"r_call_2_1"}, By: "user"})
	a.result("r_call_2_1", `{"tool":"replace_text","ok":false,"code":"call_denied","error":"denied"}`)
	a.result("r_call_2_0", `{"ok":true}`)
	a.approvalDecision(api.ApprovalDecision{ApprovalID: "calls:r_call_2_0", Approved: []string{"r_call_2_0"}}) // all results out: dropped
	a.approvalRequest(api.ApprovalRequest{ApprovalID: "calls:x", Calls: []api.ApprovalCall{{ToolID: "x"}}})    // unknown: dropped
	a.approvalRequest(api.ApprovalRequest{ApprovalID: "calls:r_call_2_2/1_0", ParentToolID: "r_call_2_2",
		Calls: []api.ApprovalCall{{ToolID: "r_call_2_2/1_0", ToolName: "note"}}})
	a.approvalDecision(api.ApprovalDecision{ApprovalID: "calls:r_call_2_2/1_0", Decision: api.DecisionTimeout,
		Denied: []string{"r_call_2_2/1_0"}, By: "policy", ParentToolID: "r_call_2_2"})
	a.result("r_call_2_2", `{"ok":true}`)
	a.Complete(api.FinishStop)

	var types, lines []string
	for _, e := range got {
		types = append(types, e.Type)
		if e.Type == api.TypeApprovalRequest || e.Type == api.TypeApprovalDecision {
			b, err := e.MarshalJSON()
			require.NoError(t, err)
			lines = append(lines, string(b[strings.Index(string(b), `"runId"`):]))
		}
	}
	require.Equal(t, []string{"tool.start", "tool.args", "tool.end", "tool.start", "tool.args", "tool.end", "tool.start", "tool.end",
		"approval.request", "tool.start", "tool.args", "tool.end", // the same approval as the confirm tool
		"request.submit", "approval.decision", "tool.result", "tool.result", "tool.result",
		"approval.request", "tool.start", "tool.args", "tool.end", "approval.decision", "tool.result", "tool.result", "run.complete"}, types)
	frames := map[string][]string{}
	for _, e := range got {
		b, err := e.MarshalJSON()
		require.NoError(t, err)
		if strings.Contains(string(b), `"toolId":"calls:r_call_2_0"`) {
			frames[e.Type] = append(frames[e.Type], string(b[strings.Index(string(b), `"toolId"`):]))
		}
	}
	args := `{"question":"Apply these 2 edits?","details":"replace \n- a\n+ b\n\nreplace_text {}",` +
		`"edits":[{"toolId":"r_call_2_0","toolName":"replace_text","op":"replace","before":"a","after":"b"},` +
		`{"toolId":"r_call_2_1","toolName":"replace_text","params":{}}]}`
	require.Equal(t, map[string][]string{
		"tool.start": {`"toolId":"calls:r_call_2_0","runId":"mtoewf3u","toolName":"confirm","toolType":"html","toolParams":` + args +
			`,"description":"Confirm the proposed edits","toolKey":"confirm","toolTimeout":300000}`},
		"tool.args":      {`"toolId":"calls:r_call_2_0","delta":` + strconv.Quote(args) + `,"chunkIndex":0}`},
		"tool.end":       {`"toolId":"calls:r_call_2_0"}`},
		"request.submit": {`"toolId":"calls:r_call_2_0","payload":{"decision":"partial","approved":["r_call_2_0"]}}`},
		"tool.result": {`"toolId":"calls:r_call_2_0","result":` +
			strconv.Quote(`{"confirmed":true,"decision":"partial","approved":["r_call_2_0"],"denied":["r_call_2_1"]}`) + `}`},
	}, frames)
	require.Equal(t, []string{
		`"runId":"mtoewf3u","approvalId":"calls:r_call_2_0","turn":2,"calls":[{"toolId":"r_call_2_0","toolName":"replace_text","instance":"t1","toolParams":{"pointer":"p"},"preview":{"op":"replace","oldMarkdown":"a","newMarkdown":"b"}},{"toolId":"r_call_2_1","toolName":"replace_text","toolParams":{},"preview":null}],"timeoutMs":300000}`,
		`"runId":"mtoewf3u","approvalId":"calls:r_call_2_0","decision":"partial","approved":["r_call_2_0"],"denied":["r_call_2_1"],"by":"user"}`,
		`"runId":"mtoewf3u","approvalId":"calls:r_call_2_2/1_0","turn":0,"calls":[{"toolId":"r_call_2_2/1_0","toolName":"note","toolParams":{},"preview":null}],"timeoutMs":0,"parentToolId":"r_call_2_2"}`,
		`"runId":"mtoewf3u","approvalId":"calls:r_call_2_2/1_0","decision":"timeout","approved":[],"denied":["r_call_2_2/1_0"],"by":"policy","parentToolId":"r_call_2_2"}`,
	}, lines)
}

// POST /submit with toolId "calls:<toolId>" answers an edit approval:
// accepted (the run gets the typed decision), 400 "Invalid edit decision:
// …" (the question kept), 200 unmatched; a frontend-style toolId names no
// approval.
func TestSubmitEditDecision(t *testing.T) {
	e := newChEnv(t, chAnswer("x"), nil)
	approval := &agent.Approval{ID: "calls:r9_call_1_0", Calls: []agent.ApprovalCall{{ToolID: "r9_call_1_0", ToolName: "replace_text"}}}
	e.eng.waits.Open("r9", agent.Event{Type: agent.ApprovalRequest, Approval: approval})
	body := func(toolID, params string) string {
		return `{"runId":"r9","toolId":"` + toolID + `","params":` + params + `}`
	}

	e.fail(http.MethodPost, "/api/ap/submit", body("calls:r9_call_1_0", `{"decision":"partial","approved":["x"]}`), 400,
		`Invalid edit decision: tool id "x" is not part of the request (calls: r9_call_1_0)`)
	_, pending := e.eng.waits.Pending("r9", "calls:r9_call_1_0")
	require.True(t, pending, "a decision that does not parse keeps the question")

	var res SubmitResponse
	e.ok(http.MethodPost, "/api/ap/submit", body("calls:r9_call_1_0", `{"decision":"approve"}`), &res)
	require.Equal(t, SubmitResponse{Accepted: true, Status: "accepted", RunID: "r9", ToolID: "calls:r9_call_1_0",
		Detail: "Edit decision accepted for runId=r9, toolId=calls:r9_call_1_0"}, res)
	a, err := e.eng.waits.Wait(context.Background(), agent.Question{RunID: "r9", ID: "calls:r9_call_1_0", Kind: agent.AskApproval})
	require.NoError(t, err)
	require.Equal(t, &protocol.ConfirmDecision{Verdict: "approve", Approved: []string{"r9_call_1_0"}, By: "user"}, a.Approval)
	require.JSONEq(t, `{"decision":"approve"}`, string(a.Raw))

	e.ok(http.MethodPost, "/api/ap/submit", body("calls:r9_call_9_9", `{"decision":"approve"}`), &res)
	require.Equal(t, SubmitResponse{Accepted: false, Status: "unmatched", RunID: "r9", ToolID: "calls:r9_call_9_9",
		Detail: "No pending edit approval found for runId=r9, toolId=calls:r9_call_9_9"}, res)

	e.ok(http.MethodPost, "/api/ap/submit", body("r9_call_1_0", `{"decision":"approve"}`), &res)
	require.Equal(t, "No pending frontend tool found for runId=r9, toolId=r9_call_1_0", res.Detail)
}
