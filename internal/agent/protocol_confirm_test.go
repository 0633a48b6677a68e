package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
)

// Edit approval (the call confirmation extension): the protocol agent's
// "echo" is a confirm tool; a native activity previews it. Turn 1 calls it
// three times; the three calls are shown in one approval.request; the
// client answers through SubmitCalls.

// previewEcho is a native echo activity with a preview.
type previewEcho struct{}

func (previewEcho) Run(_ context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (protocol.Result, error) {
	text, _ := call.Args.Get("text")
	return protocol.Result{Value: "ran " + text.(string)}, nil
}

func (previewEcho) Preview(ctx context.Context, call *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (any, error) {
	text, _ := call.Args.Get("text")
	return agentctx.NewObject("op", "echo", "newMarkdown", text, "callId", CallID(ctx)), nil
}

// confirmRun runs the scenario with approval.timeoutMs; decide is called
// once the approval.request is out (with the approvalId and the run id).
func confirmRun(t *testing.T, timeoutMs string, decide func(e *env, runID, approvalID string)) confirmed {
	e := newEnv(t, protoFiles(`"approval": {"confirmTools": ["echo"], "timeoutMs": `+timeoutMs+`}`, ""))
	e.activities = map[string]protocol.Activity{"echo": previewEcho{}}
	p := scripted(
		solution(`{"advisors":[{"id":"gate","thought":"go","calls":"{}"}],"calls":[
			{"_tool":"echo","_reasoningForCall":"a","text":"one"},
			{"_tool":"echo","_reasoningForCall":"b","text":"two"},
			{"_tool":"echo","_reasoningForCall":"c","text":"three"}],"output":null}`),
		solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"Done."}}`),
	)
	e.provide(p)
	s := e.spec("a", "edit")
	rec := e.recorder(s)
	done := make(chan error, 1)
	go func() { done <- rec.drain(e.eng.Run(context.Background(), s)) }()
	require.Eventually(t, func() bool { return len(rec.filter("approval.request:")) == 1 }, waitLong, tick)
	decide(e, s.RunID, "calls:"+s.RunID+"_call_1_0")
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitLong):
		t.Fatal("the run did not end")
	}
	rec.requireTerminal(t, "complete:stop")
	require.False(t, e.pending(s.RunID, "calls:"+s.RunID+"_call_1_0"), "the key is gone")
	reqs := p.Requests()
	require.Len(t, reqs, 2)
	return confirmed{rec: rec, runID: s.RunID, next: reqs[1].Messages[len(reqs[1].Messages)-1].Content}
}

// confirmed is the outcome of confirmRun: the events, the run id and the
// user message of the model's second request.
type confirmed struct {
	rec   *recorder
	runID string
	next  string
}

// submitCalls posts a decision and requires that it was pending.
func submitCalls(t *testing.T, e *env, runID, approvalID, params string) {
	t.Helper()
	require.True(t, e.submit(runID, approvalID, params), params)
}

// Approve all: tool.end ×3 → approval.request {approvalId, turn, calls
// with resolved params and previews, timeoutMs} → request.submit →
// approval.decision → the three results.
func TestProtocolEditApprovalApprove(t *testing.T) {
	c := confirmRun(t, "5000", func(e *env, runID, approvalID string) {
		submitCalls(t, e, runID, approvalID, `{"decision":"approve"}`)
	})
	rec := c.rec
	id := func(i string) string { return c.runID + "_call_1_" + i }
	preview := func(i, text string) string {
		return `{"op":"echo","newMarkdown":"` + text + `","callId":"` + id(i) + `"}`
	}
	require.Equal(t, []string{
		"end:" + id("0"), "end:" + id("1"), "end:" + id("2"),
		"approval.request:calls:" + id("0") + ":1:5000:[" +
			id("0") + `=echo@{"text":"one"}~` + preview("0", "one") + " " +
			id("1") + `=echo@{"text":"two"}~` + preview("1", "two") + " " +
			id("2") + `=echo@{"text":"three"}~` + preview("2", "three") + "]:",
		"submit:calls:" + id("0") + `:{"decision":"approve"}`,
		"approval.decision:calls:" + id("0") + ":approve:[" + id("0") + " " + id("1") + " " + id("2") + "]:[]:user::",
	}, rec.filter("end:", "approval.", "submit:"))
	results := rec.filter("result:")
	require.Len(t, results, 3)
	for _, r := range results {
		require.Contains(t, r, ":ran ")
	}
	require.Greater(t, index(rec.list(), "approval.decision:"), index(rec.list(), "submit:"))
	require.Less(t, index(rec.list(), "approval.decision:"), index(rec.list(), "result:"))
}

// index returns the position of the first event with the prefix.
func index(events []string, prefix string) int {
	for i, e := range events {
		if strings.HasPrefix(e, prefix) {
			return i
		}
	}
	return -1
}

// Partial: only the approved calls run; the denied one fails with
// call_denied and the reason, which reaches the model.
func TestProtocolEditApprovalPartial(t *testing.T) {
	c := confirmRun(t, "5000", func(e *env, runID, approvalID string) {
		submitCalls(t, e, runID, approvalID, `{"decision":"partial","approved":["`+runID+`_call_1_2","`+runID+`_call_1_0"],"reason":"not two"}`)
	})
	rec := c.rec
	id := func(i string) string { return c.runID + "_call_1_" + i }
	require.Equal(t, []string{"approval.decision:calls:" + id("0") + ":partial:[" + id("0") + " " + id("2") + "]:[" + id("1") + "]:user:not two:"},
		rec.filter("approval.decision:"))
	require.Equal(t, []string{"result:" + id("0") + ":ran one"}, rec.filter("result:"+id("0")))
	require.Equal(t, []string{"result:" + id("2") + ":ran three"}, rec.filter("result:"+id("2")))
	denied := rec.filter("result:" + id("1"))
	require.Len(t, denied, 1)
	require.Contains(t, denied[0], `"code":"call_denied"`)
	require.Contains(t, denied[0], "echo was not run: not two")
	require.Contains(t, c.next, "call_denied", "the denial is fed back to the model")
}

// Deny: nothing runs.
func TestProtocolEditApprovalDeny(t *testing.T) {
	rec := confirmRun(t, "5000", func(e *env, runID, approvalID string) {
		submitCalls(t, e, runID, approvalID, `{"decision":"deny","reason":"leave it"}`)
	}).rec
	dec := rec.filter("approval.decision:")
	require.Len(t, dec, 1)
	require.Contains(t, dec[0], ":deny:[]:[")
	require.Contains(t, dec[0], ":user:leave it:")
	results := rec.filter("result:")
	require.Len(t, results, 3)
	for _, r := range results {
		require.Contains(t, r, `"code":"call_denied"`)
	}
}

// Timeout: approval.decision timeout by policy, no submit, nothing runs;
// an answer after it is unmatched.
func TestProtocolEditApprovalTimeout(t *testing.T) {
	var late func() bool
	c := confirmRun(t, "50", func(e *env, runID, approvalID string) {
		late = func() bool { return e.submit(runID, approvalID, `{"decision":"approve"}`) }
	})
	rec, runID := c.rec, c.runID
	dec := rec.filter("approval.decision:")
	require.Len(t, dec, 1)
	require.True(t, strings.HasPrefix(dec[0], "approval.decision:calls:"+runID+"_call_1_0:timeout:[]:["), dec[0])
	require.Contains(t, dec[0], ":policy:no decision before the timeout:")
	require.Empty(t, rec.filter("submit:"))
	for _, r := range rec.filter("result:") {
		require.Contains(t, r, `"code":"call_denied"`)
	}
	require.False(t, late())
}
