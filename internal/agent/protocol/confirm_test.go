package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// Call confirmation (aite extension, § 6.3 "all edits shown for approval
// before they are applied"): three instanced targets, a `propose` activity
// writing †state.proposal in each, and three `replace` calls gated by
// references on their own proposals. replace is a confirm tool whose
// activity previews the edit.

// rtTargets are the three instances of the § 6.3 scenario.
const rtTargets = `[{"type":"state","_instance":"t1","state":{"pointer":"41:3.2.p4","markdown":"old one"}},
	{"type":"state","_instance":"t2","state":{"pointer":"57:3.4.p2","markdown":"old two"}},
	{"type":"state","_instance":"t3","state":{"pointer":"88:5.1.p7","markdown":"old three"}}]`

// rtEditTurn proposes in each target, then replaces each target's item with
// its own proposal (references: every replace waits for its proposal).
const rtEditTurn = `{"calls":[
	{"_tool":"propose","_instance":"t1"},{"_tool":"propose","_instance":"t2"},{"_tool":"propose","_instance":"t3"},
	{"_tool":"replace","_instance":"t1","pointer":"†state.pointer","newMarkdown":"†state.proposal.newMarkdown"},
	{"_tool":"replace","_instance":"t2","pointer":"†state.pointer","newMarkdown":"†state.proposal.newMarkdown"},
	{"_tool":"replace","_instance":"t3","pointer":"†state.pointer","newMarkdown":"†state.proposal.newMarkdown"}],"output":null}`

// rtPreviewer is an activity with a preview: the recording activity of the
// harness plus Preview, which reports the item's old and new Markdown (or
// fails for pointers in failFor).
type rtPreviewer struct {
	Activity
	mu       sync.Mutex
	previews []string // tool ids previewed
	failFor  string
}

func (p *rtPreviewer) Preview(_ context.Context, call *Call, _ *Tool, scoped Scoped) (any, error) {
	p.mu.Lock()
	p.previews = append(p.previews, call.ToolID)
	p.mu.Unlock()
	ptr, _ := call.Args.Get("pointer")
	if ptr == p.failFor {
		return nil, errors.New("the item was deleted")
	}
	md, _ := call.Args.Get("newMarkdown")
	var st struct {
		Markdown string `json:"markdown"`
	}
	if raw, ok := scoped.Kind("state"); ok {
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, err
		}
	}
	old := st.Markdown
	return map[string]any{"pointer": ptr, "op": "replace", "oldMarkdown": old, "newMarkdown": md}, nil
}

// rtConfirmer answers with fn and records the requests.
type rtConfirmer struct {
	mu   sync.Mutex
	reqs []CallConfirmation
	fn   func(ctx context.Context, req CallConfirmation) (ConfirmDecision, error)
}

func (c *rtConfirmer) Confirm(ctx context.Context, req CallConfirmation) (ConfirmDecision, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	return c.fn(ctx, req)
}

func (c *rtConfirmer) requests() []CallConfirmation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs)
}

// rtEditAgent sets up the scenario: the propose activity lands the
// proposals one after the other (t3 first, t1 last: each waits until the
// one before it returned) so that the replace calls become ready at
// different times; edit may change the agent.
func rtEditAgent(t *testing.T, h *rtHarness, edit func(*Agent)) (*Agent, *rtPreviewer) {
	t.Helper()
	landed := map[string]chan struct{}{"t1": make(chan struct{}), "t2": make(chan struct{}), "t3": make(chan struct{})}
	after := map[string]string{"t1": "t2", "t2": "t3"}
	h.activity("propose", func(call *Call, scoped Scoped) (Result, error) {
		if prev, ok := after[call.Instance]; ok {
			<-landed[prev]
		}
		defer close(landed[call.Instance])
		return Result{Value: map[string]any{"newMarkdown": "NEW " + call.Instance}}, nil
	})
	h.activity("replace", func(call *Call, _ Scoped) (Result, error) {
		md, _ := call.Args.Get("newMarkdown")
		return Result{Value: map[string]any{"ok": true, "newMarkdown": md}}, nil
	})
	pv := &rtPreviewer{Activity: h.activities["replace"]}
	h.activities["replace"] = pv
	tools := []ToolDecl{
		rtTool(t, "propose", "backend", `{"type":"object","properties":{"_outputPath":{"const":"†state.proposal"}}}`),
		rtTool(t, "replace", "backend", `{"type":"object","properties":{"_scopes":{"const":["state"]},
			"pointer":{"type":"string"},"newMarkdown":{"type":"string"}},"required":["pointer","newMarkdown"]}`),
	}
	a := h.agent("editor", "Edit the targets.", tools, func(a *Agent) {
		a.ConfirmTools = []string{"replace"}
		if edit != nil {
			edit(a)
		}
	})
	return a, pv
}

// rtReplaceIDs are the tool ids of the three replace calls.
var rtReplaceIDs = []string{"run1_call_1_3", "run1_call_1_4", "run1_call_1_5"}

// replaced returns the tool ids of the dispatched replace calls.
func (h *rtHarness) replaced() []string {
	var out []string
	for _, d := range h.dispatched() {
		if d.Tool == "replace" {
			out = append(out, d.ToolID)
		}
	}
	return out
}

// The three instanced edits of § 6.3 are shown together in ONE request,
// after their proposals landed, with resolved arguments and previews; the
// approved edits run; events: tool.start … confirm.request →
// confirm.decision → the held calls' tool.result.
func TestConfirmInstancedEditsInOneRequest(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := newHarness(t)
	a, pv := rtEditAgent(t, h, nil)
	conf := &rtConfirmer{fn: func(_ context.Context, req CallConfirmation) (ConfirmDecision, error) {
		return ConfirmDecision{Verdict: VerdictApprove}, nil
	}}
	h.rt.Confirmer = conf
	h.script("editor", rtEditTurn, rtDone)

	res := h.mustRun(a, rtCtx(t, rtTargets), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Empty(t, rtErrors(res.Context))
	reqs := conf.requests()
	require.Len(t, reqs, 1, "one confirmation for the three edits")
	req := reqs[0]
	require.Equal(t, "calls:run1_call_1_3", req.ApprovalID)
	require.Equal(t, "run1", req.RunID)
	require.Equal(t, 1, req.Turn)
	require.Equal(t, DefaultApprovalTimeout, req.Timeout)
	var ids []string
	for i, c := range req.Calls {
		ids = append(ids, c.ToolID)
		inst := []string{"t1", "t2", "t3"}[i]
		require.Equal(t, "replace", c.Tool)
		require.Equal(t, inst, c.Instance)
		ptr := map[string]string{"t1": "41:3.2.p4", "t2": "57:3.4.p2", "t3": "88:5.1.p7"}[inst]
		require.Equal(t, `{"pointer":"`+ptr+`","newMarkdown":"NEW `+inst+`"}`, rtJSON(t, c.Args), "resolved arguments")
		old := map[string]string{"t1": "old one", "t2": "old two", "t3": "old three"}[inst]
		require.Equal(t, `{"newMarkdown":"NEW `+inst+`","oldMarkdown":"`+old+`","op":"replace","pointer":"`+ptr+`"}`,
			rtJSON(t, c.Preview), "the preview, computed from the call's own scoped view")
	}
	require.Equal(t, rtReplaceIDs, ids, "call-index order")
	require.Len(t, pv.previews, 3)
	require.Equal(t, rtReplaceIDs, h.replaced())
	for i, inst := range []string{"t1", "t2", "t3"} {
		got, _ := rtRead(t, res.Context, inst, "†state.proposal")
		require.Equal(t, `{"newMarkdown":"NEW `+inst+`"}`, got, i)
	}

	// Events: request and decision before the held calls' results.
	var order []string
	for _, e := range h.eventsOf(EvConfirmRequest, EvConfirmDecision, EvToolResult) {
		switch {
		case e.Type == EvToolResult && e.ToolName == "replace":
			order = append(order, "result:"+e.ToolID)
		case e.Type != EvToolResult:
			order = append(order, string(e.Type))
		}
	}
	require.Equal(t, []string{"confirm.request", "confirm.decision",
		"result:run1_call_1_3", "result:run1_call_1_4", "result:run1_call_1_5"}, sortResults(order))
	dec := h.eventsOf(EvConfirmDecision)[0]
	require.Equal(t, ConfirmDecision{Verdict: VerdictApprove, Approved: rtReplaceIDs, Denied: []string{}, By: ByUser}, *dec.Confirmed)
	require.Equal(t, "calls:run1_call_1_3", dec.Confirm.ApprovalID)
}

// sortResults keeps the confirm events in place and sorts the results
// after them (their completion order is not deterministic).
func sortResults(order []string) []string {
	var head, results []string
	for _, s := range order {
		if strings.HasPrefix(s, "result:") {
			results = append(results, s)
			continue
		}
		if len(results) > 0 {
			return order // a result before a confirm event: keep it visible
		}
		head = append(head, s)
	}
	slices.Sort(results)
	return append(head, results...)
}

// Partial approval: only the approved edits run; the denied one gets
// call_denied with the reason, fed back to the model, and a failed
// tool.result; the decision reports approved and denied ids.
func TestConfirmPartialApproval(t *testing.T) {
	h := newHarness(t)
	a, _ := rtEditAgent(t, h, nil)
	h.rt.Confirmer = &rtConfirmer{fn: func(context.Context, CallConfirmation) (ConfirmDecision, error) {
		return ConfirmDecision{Verdict: VerdictPartial, Approved: []string{"run1_call_1_5", "run1_call_1_3"}, Reason: "keep t2 as it is"}, nil
	}}
	h.script("editor", rtEditTurn, rtDone)
	var turns []TurnSummary
	h.rt.Hooks.OnTurn = append(h.rt.Hooks.OnTurn, func(s TurnSummary) { turns = append(turns, s) })

	res := h.mustRun(a, rtCtx(t, rtTargets), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Equal(t, []string{"run1_call_1_3", "run1_call_1_5"}, h.replaced())
	require.Equal(t, []string{"call_denied@replace"}, rtErrors(res.Context))
	info := rtErrorOf(t, res.Context, CodeCallDenied)
	require.Equal(t, "replace (instance t2) was not run: keep t2 as it is", info.Message)
	require.Equal(t, `{"decision":"partial","reason":"keep t2 as it is","approvalId":"calls:run1_call_1_3"}`, rtJSON(t, info.Details))
	require.Equal(t, `{"index":4,"_tool":"replace","_instance":"t2"}`, rtJSON(t, info.Call))
	require.Contains(t, rtUser(h.requests("editor")[1]), "call_denied", "the denial is fed back to the model")
	dec := h.eventsOf(EvConfirmDecision)[0].Confirmed
	require.Equal(t, VerdictPartial, dec.Verdict)
	require.Equal(t, []string{"run1_call_1_3", "run1_call_1_5"}, dec.Approved)
	require.Equal(t, []string{"run1_call_1_4"}, dec.Denied)
	for _, e := range h.eventsOf(EvToolResult) {
		if e.ToolName == "replace" {
			require.Equal(t, e.ToolID != "run1_call_1_4", e.OK, e.ToolID)
			if !e.OK {
				require.Equal(t, CodeCallDenied, e.Code)
			}
		}
	}
	require.Equal(t, []string{"run1_call_1_4"}, turns[0].Denied)
	got, _ := rtRead(t, res.Context, "", "†data.results")
	require.Contains(t, got, `"instance":"t1"`)
	require.NotContains(t, got, `"instance":"t2"`, "nothing logged for the denied call")
}

// A confirmation without an answer in time denies every held call with
// the decision "timeout"; the run goes on.
func TestConfirmTimeout(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := newHarness(t)
	a, _ := rtEditAgent(t, h, func(a *Agent) { a.Approval.Timeout = 40 * time.Millisecond })
	h.rt.Confirmer = &rtConfirmer{fn: func(ctx context.Context, _ CallConfirmation) (ConfirmDecision, error) {
		<-ctx.Done()
		return ConfirmDecision{}, ctx.Err()
	}}
	h.script("editor", rtEditTurn, rtDone)

	res := h.mustRun(a, rtCtx(t, rtTargets), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Empty(t, h.replaced())
	require.Equal(t, []string{"call_denied@replace", "call_denied@replace", "call_denied@replace"}, rtErrors(res.Context))
	info := rtErrorOf(t, res.Context, CodeCallDenied)
	require.Contains(t, info.Message, "no decision before the timeout")
	dec := h.eventsOf(EvConfirmDecision)[0].Confirmed
	require.Equal(t, ConfirmDecision{Verdict: VerdictTimeout, Approved: []string{}, Denied: rtReplaceIDs,
		Reason: "no decision before the timeout", By: ByPolicy}, *dec)
}

// Policy "auto": confirm tools run without confirmation (no request, no
// preview, no events).
func TestConfirmPolicyAuto(t *testing.T) {
	h := newHarness(t)
	a, pv := rtEditAgent(t, h, func(a *Agent) { a.Approval.Calls = CallsAuto })
	conf := &rtConfirmer{fn: func(context.Context, CallConfirmation) (ConfirmDecision, error) {
		t.Error("the confirmer was asked under policy auto")
		return ConfirmDecision{}, nil
	}}
	h.rt.Confirmer = conf
	h.script("editor", rtEditTurn, rtDone)

	res := h.mustRun(a, rtCtx(t, rtTargets), RunOptions{})

	require.Empty(t, rtErrors(res.Context))
	require.Equal(t, rtReplaceIDs, h.replaced())
	require.Empty(t, conf.requests())
	require.Empty(t, pv.previews)
	require.Empty(t, h.eventsOf(EvConfirmRequest, EvConfirmDecision))
}

// Without a Confirmer, policy "ask" denies with "no approver": a decision
// event, no request event.
func TestConfirmWithoutConfirmer(t *testing.T) {
	h := newHarness(t)
	a, _ := rtEditAgent(t, h, nil)
	h.script("editor", rtEditTurn, rtDone)

	res := h.mustRun(a, rtCtx(t, rtTargets), RunOptions{})

	require.Empty(t, h.replaced())
	require.Len(t, rtErrors(res.Context), 3)
	require.Contains(t, rtErrorOf(t, res.Context, CodeCallDenied).Message, "no approver")
	require.Empty(t, h.eventsOf(EvConfirmRequest))
	dec := h.eventsOf(EvConfirmDecision)
	require.Len(t, dec, 1)
	require.Equal(t, ByPolicy, dec[0].Confirmed.By)
	require.Equal(t, VerdictDeny, dec[0].Confirmed.Verdict)
}

// A failing Confirmer, or one answering with ids outside the request,
// fails the held calls with approval_failed; the decision event says deny.
func TestConfirmFailures(t *testing.T) {
	for name, fn := range map[string]func(context.Context, CallConfirmation) (ConfirmDecision, error){
		"error": func(context.Context, CallConfirmation) (ConfirmDecision, error) {
			return ConfirmDecision{}, errors.New("UI gone")
		},
		"unknown id": func(context.Context, CallConfirmation) (ConfirmDecision, error) {
			return ConfirmDecision{Approved: []string{"x"}}, nil
		},
		"verdict": func(context.Context, CallConfirmation) (ConfirmDecision, error) {
			return ConfirmDecision{Verdict: "maybe"}, nil
		},
		"panic": func(context.Context, CallConfirmation) (ConfirmDecision, error) { panic("boom") },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			a, _ := rtEditAgent(t, h, nil)
			h.rt.Confirmer = &rtConfirmer{fn: fn}
			h.script("editor", rtEditTurn, rtDone)

			res := h.mustRun(a, rtCtx(t, rtTargets), RunOptions{})

			require.Equal(t, FinishStop, res.FinishReason)
			require.Empty(t, h.replaced())
			require.Equal(t, []string{"approval_failed@replace", "approval_failed@replace", "approval_failed@replace"}, rtErrors(res.Context))
			dec := h.eventsOf(EvConfirmDecision)
			require.Len(t, dec, 1)
			require.Equal(t, VerdictDeny, dec[0].Confirmed.Verdict)
			require.Contains(t, dec[0].Confirmed.Reason, "the confirmation failed")
		})
	}
}

// A call whose preview fails is not put to the user: it fails with
// activity_failed; the others are confirmed.
func TestConfirmPreviewFailure(t *testing.T) {
	h := newHarness(t)
	a, pv := rtEditAgent(t, h, nil)
	pv.failFor = "57:3.4.p2"
	conf := &rtConfirmer{fn: func(context.Context, CallConfirmation) (ConfirmDecision, error) {
		return ConfirmDecision{Verdict: VerdictApprove}, nil
	}}
	h.rt.Confirmer = conf
	h.script("editor", rtEditTurn, rtDone)

	res := h.mustRun(a, rtCtx(t, rtTargets), RunOptions{})

	require.Equal(t, []string{"activity_failed@replace"}, rtErrors(res.Context))
	require.Contains(t, rtErrorOf(t, res.Context, CodeActivityFailed).Message, "the item was deleted")
	require.Len(t, conf.requests(), 1)
	require.Len(t, conf.requests()[0].Calls, 2)
	require.Equal(t, []string{"run1_call_1_3", "run1_call_1_5"}, h.replaced())
}

// A sub-run's confirmation bubbles up to the same Confirmer with the
// parent tool id, and its events are forwarded.
func TestConfirmSubRunBubblesUp(t *testing.T) {
	h := newHarness(t)
	h.activity("logEvent", nil)
	h.agent("child", "Log it.", []ToolDecl{rtTool(t, "logEvent", "backend", `{"type":"object","properties":{"eventName":{"type":"string"}}}`)},
		func(a *Agent) { a.ConfirmTools = []string{"logEvent"} })
	h.script("child", `{"calls":[{"_tool":"logEvent","eventName":"x"}],"output":null}`, `{"calls":[],"output":{"ok":true}}`)
	a := h.agent("parent", "", []ToolDecl{rtTool(t, "sub", "delegate", `{"type":"object","properties":{"_delegate":{"const":"child"}}}`)}, nil)
	h.script("parent", `{"calls":[{"_tool":"sub"}],"output":null}`, rtDone)
	conf := &rtConfirmer{fn: func(context.Context, CallConfirmation) (ConfirmDecision, error) {
		return ConfirmDecision{Verdict: VerdictApprove}, nil
	}}
	h.rt.Confirmer = conf

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	reqs := conf.requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "run1_call_1_0", reqs[0].ParentToolID)
	require.Equal(t, "calls:run1_call_1_0/1_0", reqs[0].ApprovalID)
	require.Nil(t, reqs[0].Calls[0].Preview, "an activity without Previewer has no preview")
	evs := h.eventsOf(EvConfirmRequest, EvConfirmDecision)
	require.Len(t, evs, 2)
	for _, e := range evs {
		require.Equal(t, 1, e.Depth)
		require.Equal(t, "run1_call_1_0", e.ParentToolID)
	}
	require.Len(t, h.dispatched(), 1)
}

func TestConfirmToolsNormalize(t *testing.T) {
	a := &Agent{Key: "a", ConfirmTools: []string{"x", "x", "y"}}
	require.NoError(t, a.Normalize())
	require.Equal(t, []string{"x", "y"}, a.ConfirmTools)
	require.Equal(t, CallsAsk, a.Approval.Calls)
	for _, bad := range []*Agent{
		{Key: "b", Approval: Approval{Calls: "deny"}},
		{Key: "c", ConfirmTools: []string{""}},
		{Key: "d", ConfirmTools: []string{ConsultAdvisor}},
		{Key: "e", ConfirmTools: []string{"draft"}, Tools: []ToolDecl{rtTool(t, "draft", "latent",
			`{"type":"object","properties":{"_output":{"type":"string"}}}`)}},
	} {
		require.Error(t, bad.Normalize(), bad.Key)
	}
}

// Approved calls run under maxParallel like the others, and the calls held
// and released are counted as dispatched tool calls only once they run.
func TestConfirmReleaseHonoursMaxParallel(t *testing.T) {
	// In a bubble: the calls run 10 ms of virtual time each.
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		var mu sync.Mutex
		running, peak := 0, 0
		h.activity("logEvent", func(*Call, Scoped) (Result, error) {
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			return Result{}, nil
		})
		a := h.agent("logger", "", []ToolDecl{rtTool(t, "logEvent", "backend", `{"type":"object","properties":{"eventName":{"type":"string"}}}`)},
			func(a *Agent) {
				a.ConfirmTools = []string{"logEvent"}
				a.Limits.MaxParallel = 1
			})
		h.script("logger", `{"calls":[{"_tool":"logEvent","eventName":"a"},{"_tool":"logEvent","eventName":"b"},{"_tool":"logEvent","eventName":"c"}],"output":null}`, rtDone)
		conf := &rtConfirmer{fn: func(context.Context, CallConfirmation) (ConfirmDecision, error) {
			return ConfirmDecision{Verdict: VerdictApprove}, nil
		}}
		h.rt.Confirmer = conf
		var turns []TurnSummary
		h.rt.Hooks.OnTurn = append(h.rt.Hooks.OnTurn, func(s TurnSummary) { turns = append(turns, s) })

		res := h.mustRun(a, nil, RunOptions{})

		require.Equal(t, FinishStop, res.FinishReason)
		require.Len(t, conf.requests(), 1)
		require.Len(t, conf.requests()[0].Calls, 3)
		require.Len(t, h.dispatched(), 3)
		require.Equal(t, 1, peak, "maxParallel 1")
		require.Len(t, turns[0].Dispatched, 3)
	})
}
