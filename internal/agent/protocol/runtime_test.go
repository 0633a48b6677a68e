package protocol

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// rtNoopAgent is an agent with one backend tool `noop` whose activity is
// registered by the caller.
func rtNoopAgent(t testing.TB, h *rtHarness, key string, edit func(*Agent)) *Agent {
	return h.agent(key, "Be brief.", []ToolDecl{rtTool(t, "noop", "backend", `{"type":"object","properties":{"n":{"type":"integer"}}}`)}, edit)
}

const rtNoop = `{"calls":[{"_tool":"noop"}],"output":null}`

func TestRunRejectsBadInput(t *testing.T) {
	_, err := (&Runtime{}).Run(context.Background(), &Agent{}, nil, RunOptions{})
	require.ErrorContains(t, err, "Provider is nil")
	h := newHarness(t)
	_, err = h.rt.Run(context.Background(), nil, nil, RunOptions{})
	require.ErrorContains(t, err, "nil agent")
	h.rt.Provider = func(string) (llm.Provider, error) { return nil, errors.New("no such model") }
	_, err = h.rt.Run(context.Background(), h.agent("x", "", nil, nil), nil, RunOptions{})
	require.ErrorContains(t, err, "no such model")
}

func TestRunEventsAndOutput(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", func(*Call, Scoped) (Result, error) { return Result{Value: "ok"}, nil })
	a := rtNoopAgent(t, h, "ev", func(a *Agent) {
		a.OutputText = "answer"
		a.OutputSchema = rtObj(t, `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)
	})
	h.model("ev", func(_ *llm.Request, n int) llmtest.Reply {
		if n == 1 {
			return llmtest.Join(llmtest.Reasoning("thinking"), llmtest.Text(rtNoop)).WithUsage(llm.Usage{InputTokens: 10, OutputTokens: 2})
		}
		return llmtest.Text(`{"calls":[],"output":{"answer":"All done."}}`).WithUsage(llm.Usage{InputTokens: 12, OutputTokens: 3})
	})
	var usage []llm.Usage
	h.rt.Hooks.OnUsage = append(h.rt.Hooks.OnUsage, func(u llm.Usage) { usage = append(usage, u) })

	res := h.mustRun(a, rtCtx(t, `[{"type":"input","input":{"message":"go"}}]`), RunOptions{RunID: "r7"})

	require.True(t, res.HasOutput)
	require.Equal(t, `{"answer":"All done."}`, rtJSON(t, res.Output))
	require.Equal(t, llm.Usage{InputTokens: 22, OutputTokens: 5}, res.Usage)
	require.Len(t, usage, 2)
	require.Equal(t, []string{"run.start", "turn.start", "reasoning.delta", "step", "tool.start:noop", "tool.result:noop",
		"context", "turn.start", "step", "output", "run.complete"}, h.trace())
	start := h.eventsOf(EvRunStart)[0]
	require.Equal(t, `[{"type":"system","message":"Be brief."},{"type":"input","input":{"message":"go"}}]`, rtJSON(t, start.Context))
	require.Equal(t, "r7", start.RunID)
	require.Equal(t, "thinking", h.eventsOf(EvReasoning)[0].Text)
	require.Equal(t, "r7_call_1_0", h.eventsOf(EvToolStart)[0].ToolID)
	require.Equal(t, "backend", h.eventsOf(EvToolStart)[0].FileKind)
	ctxEv := h.eventsOf(EvContext)[0]
	require.Len(t, ctxEv.Context, 1, "the results log write")
	require.Equal(t, "All done.", h.eventsOf(EvOutput)[0].Text)
	step := h.eventsOf(EvStep)[0].Step
	require.Equal(t, "react", step.Stage)
	require.Equal(t, "thinking", step.Reply.Reasoning)
	require.NotNil(t, step.Solution)
	require.Len(t, res.Appended, 1)
	require.Equal(t, 2, len(res.Context)-len(res.Appended))
}

func TestRunObserverPanicIsRecovered(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", nil)
	a := rtNoopAgent(t, h, "p", nil)
	h.script("p", rtNoop, rtDone)
	var after atomic.Int32
	h.rt.Hooks.OnUsage = append(h.rt.Hooks.OnUsage, func(llm.Usage) { panic("observer bug") }, func(llm.Usage) { after.Add(1) })
	h.rt.Hooks.OnTurn = append(h.rt.Hooks.OnTurn, func(TurnSummary) { panic("observer bug") })
	h.rt.Hooks.OnWrite = append(h.rt.Hooks.OnWrite, func(agentctx.Message) { panic("observer bug") })
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.EqualValues(t, 2, after.Load(), "the next observer still runs")
	require.Contains(t, logged.String(), "observer panicked")
	require.Contains(t, logged.String(), "hook=OnTurn")
}

func TestRunBeforeRequestChangesTheRequest(t *testing.T) {
	h := newHarness(t)
	a := h.agent("br", "", nil, nil)
	h.script("other", rtDone)
	temp := 0.25
	h.rt.Hooks.BeforeRequest = append(h.rt.Hooks.BeforeRequest,
		func(_ context.Context, req *llm.Request) (*llm.Request, error) {
			c := req.Clone()
			c.Model = "other"
			return c, nil
		},
		func(_ context.Context, req *llm.Request) (*llm.Request, error) {
			req.Temperature = &temp
			return nil, nil // keep the (modified) request
		})

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Empty(t, h.requests("br"))
	reqs := h.requests("other")
	require.Len(t, reqs, 1)
	require.Equal(t, 0.25, *reqs[0].Temperature)
	require.Equal(t, "other", h.eventsOf(EvStep)[0].Step.Request.Model)
}

func TestRunBeforeRequestErrorFailsTheRun(t *testing.T) {
	h := newHarness(t)
	a := h.agent("bre", "", nil, nil)
	h.rt.Hooks.BeforeRequest = append(h.rt.Hooks.BeforeRequest, func(context.Context, *llm.Request) (*llm.Request, error) {
		return nil, errors.New("quota exceeded")
	})
	_, err := h.run(a, nil, RunOptions{})
	require.ErrorContains(t, err, "quota exceeded")
	require.Empty(t, h.provider.Requests())
}

func TestRunProviderErrorFailsTheRun(t *testing.T) {
	h := newHarness(t)
	a := h.agent("pe", "", nil, nil)
	h.model("pe", func(*llm.Request, int) llmtest.Reply {
		return llmtest.Fail(&llm.Error{Kind: llm.Auth, Status: 401, Message: "bad key"})
	})
	_, err := h.run(a, nil, RunOptions{})
	require.True(t, llm.IsKind(err, llm.Auth), "got %v", err)
	require.Empty(t, h.eventsOf(EvComplete))
}

func TestRunContextCancellation(t *testing.T) {
	defer goleak.VerifyNone(t)
	t.Run("duringModel", func(t *testing.T) {
		h := newHarness(t)
		a := h.agent("cm", "", nil, nil)
		started := make(chan struct{})
		h.model("cm", func(*llm.Request, int) llmtest.Reply { close(started); return llmtest.Timeout() })
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		_, err := h.rt.Run(ctx, a, nil, RunOptions{})
		require.ErrorIs(t, err, context.Canceled)
	})
	t.Run("duringActivity", func(t *testing.T) {
		h := newHarness(t)
		ctx, cancel := context.WithCancel(context.Background())
		h.activity("noop", func(*Call, Scoped) (Result, error) { cancel(); return Result{}, context.Canceled })
		a := rtNoopAgent(t, h, "ca", nil)
		h.script("ca", rtNoop, rtDone)
		_, err := h.rt.Run(ctx, a, nil, RunOptions{})
		require.ErrorIs(t, err, context.Canceled)
		require.Len(t, h.requests("ca"), 1, "no turn after the cancellation")
	})
}

func TestRunToolCallBudget(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", nil)
	a := rtNoopAgent(t, h, "tb", func(a *Agent) { a.Limits.MaxToolCalls = 1; a.Limits.MaxParallel = 1 })
	h.script("tb", `{"calls":[{"_tool":"noop","n":1},{"_tool":"noop","n":2}],"output":null}`)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishBudget, res.FinishReason)
	require.Equal(t, "toolCalls", res.Ledger.Cap)
	require.Equal(t, 1, res.Ledger.ToolCalls)
	require.Equal(t, []PendingCall{{ToolID: "run1_call_1_1", Tool: "noop", WaitingOn: []string{}}}, res.Ledger.PendingCalls)
	require.Len(t, h.dispatched(), 1)
}

func TestRunModelCallBudget(t *testing.T) {
	t.Run("finalTurnByBudget", func(t *testing.T) {
		h := newHarness(t)
		h.activity("noop", nil)
		a := rtNoopAgent(t, h, "mb", func(a *Agent) { a.Limits.MaxModelCalls = 2 })
		h.script("mb", rtNoop, `{"output":{"done":true}}`)
		res := h.mustRun(a, nil, RunOptions{})
		require.Equal(t, FinishStop, res.FinishReason)
		require.NotContains(t, rtSchema(t, h.requests("mb")[1]), `"calls"`, "the last affordable turn is final")
	})
	t.Run("noOutput", func(t *testing.T) {
		h := newHarness(t)
		h.activity("noop", nil)
		a := rtNoopAgent(t, h, "mb2", func(a *Agent) { a.Limits.MaxModelCalls = 2 })
		h.script("mb2", rtNoop, `{"output":null}`)
		res := h.mustRun(a, nil, RunOptions{})
		require.Equal(t, FinishBudget, res.FinishReason)
		require.Equal(t, "modelCalls", res.Ledger.Cap)
		require.Equal(t, 2, res.Ledger.ModelCalls)
		require.Zero(t, res.Ledger.Repairs, "no repair without budget")
		require.Len(t, h.requests("mb2"), 2)
	})
}

func TestRunDeadline(t *testing.T) {
	defer goleak.VerifyNone(t)
	// In a bubble: the slow activity's 100 ms and the 30 ms deadline are the
	// bubble's virtual time.
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		h.activity("noop", func(call *Call, _ Scoped) (Result, error) {
			time.Sleep(100 * time.Millisecond)
			return Result{}, nil
		})
		a := rtNoopAgent(t, h, "dl", func(a *Agent) { a.Limits.RunTimeout = 30 * time.Millisecond })
		h.script("dl", rtNoop, rtDone)

		res := h.mustRun(a, nil, RunOptions{})

		require.Equal(t, FinishBudget, res.FinishReason)
		require.Equal(t, "deadline", res.Ledger.Cap)
		require.Len(t, h.requests("dl"), 1)
	})
}

func TestRunActivityFailures(t *testing.T) {
	h := newHarness(t)
	h.activity("boom", func(*Call, Scoped) (Result, error) { return Result{}, errors.New("disk full") })
	h.activity("panics", func(*Call, Scoped) (Result, error) { panic("bug") })
	h.activity("slow", func(*Call, Scoped) (Result, error) { return Result{}, context.DeadlineExceeded })
	h.activity("bad", func(*Call, Scoped) (Result, error) {
		return Result{Messages: []agentctx.Message{{Type: "nonsense"}}}, nil
	})
	empty := `{"type":"object","properties":{}}`
	a := h.agent("af", "", []ToolDecl{rtTool(t, "boom", "backend", empty), rtTool(t, "panics", "backend", empty),
		rtTool(t, "slow", "backend", empty), rtTool(t, "bad", "backend", empty)}, nil)
	var reported []string
	h.rt.Hooks.OnError = append(h.rt.Hooks.OnError, func(e agentctx.ErrorInfo) { reported = append(reported, e.Code) })
	h.script("af", `{"calls":[{"_tool":"boom"},{"_tool":"panics"},{"_tool":"slow"},{"_tool":"bad"}],"output":null}`, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	want := []string{"activity_failed@boom", "activity_failed@panics", "activity_timeout@slow", "activity_failed@bad"}
	require.Equal(t, want, rtErrors(res.Context), "errors are appended by call index")
	require.Equal(t, []string{"activity_failed", "activity_failed", "activity_timeout", "activity_failed"}, reported)
	require.Contains(t, rtErrorOf(t, res.Context, CodeActivityFailed).Message, "disk full")
	for _, e := range h.eventsOf(EvToolResult) {
		require.False(t, e.OK)
		require.Contains(t, e.Result, `"ok":false`)
	}
}

func TestRunOutputTurnErrorsAreNotFedBack(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", func(*Call, Scoped) (Result, error) { return Result{}, errors.New("nope") })
	a := rtNoopAgent(t, h, "ot", nil)
	var reported []string
	h.rt.Hooks.OnError = append(h.rt.Hooks.OnError, func(e agentctx.ErrorInfo) { reported = append(reported, e.Code) })
	h.script("ot", `{"calls":[{"_tool":"noop"}],"output":{"done":true}}`)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Len(t, h.dispatched(), 1, "calls sent with the output are drained first (LM1)")
	require.Empty(t, rtErrors(res.Context))
	require.Equal(t, []string{"activity_failed"}, reported)
	require.Equal(t, []string{"tool.start:noop", "tool.result:noop", "output", "run.complete"},
		h.trace(EvToolStart, EvToolResult, EvOutput, EvComplete))
}

func TestRunRepairExhausted(t *testing.T) {
	h := newHarness(t)
	a := h.agent("re", "", nil, func(a *Agent) { a.Limits.MaxTurns = 2 })
	h.script("re", "not json at all", "still not json", rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Equal(t, []string{"solution_unparsable@-"}, rtErrors(res.Context))
	e := rtErrorOf(t, res.Context, CodeSolutionUnparsable)
	require.Nil(t, e.Call)
	require.Contains(t, rtUser(h.requests("re")[2]), "solution_unparsable")
}

func TestRunApprovalFailures(t *testing.T) {
	cases := map[string]struct {
		approver Approver
		code     Code
	}{
		"error": {&rtRecordingApprover{fn: func(context.Context, ScopeRequest) (ScopeDecision, error) {
			return ScopeDecision{}, errors.New("ui gone")
		}}, CodeApprovalFailed},
		"panic": {&rtRecordingApprover{fn: func(context.Context, ScopeRequest) (ScopeDecision, error) { panic("bug") }}, CodeApprovalFailed},
		"narrowInvalid": {&rtRecordingApprover{fn: func(context.Context, ScopeRequest) (ScopeDecision, error) {
			return ScopeDecision{Verdict: VerdictNarrow, Scopes: []string{"secrets"}}, nil
		}}, CodeScopeNarrowInvalid},
		"unknownVerdict": {&rtRecordingApprover{fn: func(context.Context, ScopeRequest) (ScopeDecision, error) {
			return ScopeDecision{Verdict: "maybe"}, nil
		}}, CodeApprovalFailed},
		"noApprover": {nil, CodeScopeDenied},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.rt.Approver = c.approver
			h.activity("logEvent", nil)
			a := h.agent("ap", "", []ToolDecl{rtLogEvent(t)}, nil)
			h.script("ap", `{"calls":[{"_tool":"logEvent","_scopes":["state"],"eventName":"x"}],"output":null}`, rtDone)
			res := h.mustRun(a, rtCtx(t, `[{"type":"state","state":{"userId":"u_42"}}]`), RunOptions{})
			require.Equal(t, FinishStop, res.FinishReason, "the run continues")
			require.Equal(t, []string{string(c.code) + "@logEvent"}, rtErrors(res.Context))
			require.Empty(t, h.dispatched())
		})
	}
}

func TestRunApprovalPolicyDeny(t *testing.T) {
	h := newHarness(t)
	approver := rtApprove("")
	h.rt.Approver = approver
	h.activity("logEvent", nil)
	a := h.agent("pd", "", []ToolDecl{rtLogEvent(t)}, func(a *Agent) { a.Approval.RequestedScopes = ApprovalDeny })
	h.script("pd", `{"calls":[{"_tool":"logEvent","_scopes":["state"],"eventName":"x"},{"_tool":"logEvent","eventName":"y"}],"output":null}`, rtDone)

	res := h.mustRun(a, rtCtx(t, `[{"type":"state","state":{"userId":"u_42"}}]`), RunOptions{})

	require.Zero(t, approver.count())
	require.Equal(t, []string{"scope_denied@logEvent"}, rtErrors(res.Context))
	d := h.dispatched()
	require.Len(t, d, 1, "a call without requested scopes needs no approval")
	require.Empty(t, d[0].Scoped)
}

func TestRunChatGrants(t *testing.T) {
	h := newHarness(t)
	approver := rtApprove(RememberChat)
	h.rt.Approver = approver
	h.activity("logEvent", nil)
	a := h.agent("cg", "", []ToolDecl{rtLogEvent(t)}, nil)
	call := `{"calls":[{"_tool":"logEvent","_scopes":["state"],"eventName":"x"}],"output":null}`
	h.script("cg", call, rtDone, call, rtDone)
	initial := rtCtx(t, `[{"type":"state","state":{"userId":"u_42"}}]`)

	first := h.mustRun(a, initial, RunOptions{})

	require.Equal(t, []Grant{{Agent: "cg", Tool: "logEvent", Scopes: []string{"state"}}}, first.Grants)
	var grants []string
	for _, m := range first.Appended {
		if m.Kind == GrantsKind {
			grants = append(grants, rtJSON(t, m))
		}
	}
	require.Equal(t, []string{`{"type":"data","kind":"_grants","_path":"","data":{"agent":"cg","tool":"logEvent","scopes":["state"]},"_outputMethod":"push","_date":"2026-01-05T10:00:00Z"}`}, grants)
	require.Equal(t, first.Grants, GrantsFromContext(first.Context))
	for _, r := range h.requests("cg") {
		require.NotContains(t, rtUser(r), "_grants", "internal kinds are never rendered")
	}

	second := h.mustRun(a, initial, RunOptions{RunID: "run2", ChatGrants: GrantsFromContext(first.Context)})

	require.Equal(t, FinishStop, second.FinishReason)
	require.Equal(t, 1, approver.count(), "the second run is approved by memory")
	decisions := h.eventsOf(EvScopeDecision)
	require.Equal(t, ByMemory, decisions[len(decisions)-1].Decision.By)
	require.Empty(t, second.Grants)
	require.Len(t, h.dispatched(), 2)
}

func TestRunDelegateDepth(t *testing.T) {
	h := newHarness(t)
	tool := rtTool(t, "recurse", "delegate", `{"type":"object","properties":{"_delegate":{"const":"rec"}}}`)
	a := h.agent("rec", "", []ToolDecl{tool}, func(a *Agent) { a.Limits.MaxDelegateDepth = 1 })
	h.model("rec", func(req *llm.Request, _ int) llmtest.Reply {
		user := rtUser(req)
		switch {
		case strings.Contains(user, "delegate_depth"):
			return llmtest.Text(`{"calls":[],"output":{"depth":"refused"}}`)
		case strings.Contains(user, "refused"):
			return llmtest.Text(rtDone)
		}
		return llmtest.Text(`{"calls":[{"_tool":"recurse"}],"output":null}`)
	})

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Len(t, h.childStarts(), 1, "only depth 1 starts")
	got, ok := rtRead(t, res.Context, "", "†data.results")
	require.True(t, ok)
	require.Contains(t, got, `"depth":"refused"`)
	require.Equal(t, "run1_call_1_0", h.eventsOf(EvRunStart)[1].ParentToolID)
}

func TestRunAnonymousDelegate(t *testing.T) {
	h := newHarness(t)
	tool := rtTool(t, "summarize", "delegate", `{"type":"object","properties":{"_delegate":{"const":"anonymous"},
		"_outputPath":{"const":"†state.summary"},"instruction":{"type":"string"},
		"_output":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},"required":["instruction"]}`)
	a := h.agent("anon", "Parent prompt.", []ToolDecl{tool}, nil)
	h.model("anon", func(req *llm.Request, n int) llmtest.Reply {
		switch {
		case strings.Contains(rtUser(req), "Summarise politely."):
			return llmtest.Text(`{"output":{"text":"Short."}}`)
		case n == 1:
			return llmtest.Text(`{"calls":[{"_tool":"summarize","instruction":"Summarise politely."}],"output":null}`)
		}
		return llmtest.Text(rtDone)
	})

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Equal(t, []string{`[{"type":"input","input":{"instruction":"Summarise politely."}}]`}, h.childStarts())
	got, _ := rtRead(t, res.Context, "", "†state.summary")
	require.Equal(t, `{"text":"Short."}`, got)
	var child *llm.Request
	for _, r := range h.requests("anon") {
		if strings.Contains(rtUser(r), "Summarise politely.") {
			child = r
		}
	}
	require.NotNil(t, child)
	schema := rtSchema(t, child)
	require.NotContains(t, schema, `"calls"`, "one final turn: output only")
	require.Contains(t, schema, `"text"`)
	require.NotContains(t, child.Messages[0].Content, "Parent prompt.")
}

func TestRunMaxParallel(t *testing.T) {
	// In a bubble: the activities overlap for 10 ms of virtual time.
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		var running, peak atomic.Int32
		h.activity("noop", func(*Call, Scoped) (Result, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(10 * time.Millisecond)
			running.Add(-1)
			return Result{}, nil
		})
		a := rtNoopAgent(t, h, "mp", func(a *Agent) { a.Limits.MaxParallel = 2 })
		h.script("mp", `{"calls":[{"_tool":"noop","n":1},{"_tool":"noop","n":2},{"_tool":"noop","n":3},{"_tool":"noop","n":4}],"output":null}`, rtDone)

		res := h.mustRun(a, nil, RunOptions{})

		require.Equal(t, FinishStop, res.FinishReason)
		require.Len(t, h.dispatched(), 4)
		require.EqualValues(t, 2, peak.Load())
	})
}

func TestRunActivityMessagesCreateInstances(t *testing.T) {
	h := newHarness(t)
	h.activity("create_targets", func(*Call, Scoped) (Result, error) {
		return Result{Messages: []agentctx.Message{
			{Type: agentctx.TypeState, Kind: "state", Instance: "t1", Value: rtObj(t, `{"pointer":"41:3.2.p4"}`), HasValue: true},
			{Type: agentctx.TypeState, Kind: "state", Instance: "t2", Value: rtObj(t, `{"pointer":"57:3.4.p2"}`), HasValue: true},
		}}, nil
	})
	var written int
	h.rt.Hooks.OnWrite = append(h.rt.Hooks.OnWrite, func(agentctx.Message) { written++ })
	a := h.agent("ct", "", []ToolDecl{rtTool(t, "create_targets", "backend", `{"type":"object","properties":{}}`)}, nil)
	h.script("ct", `{"calls":[{"_tool":"create_targets"}],"output":null}`, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, []string{"t1", "t2"}, res.Context.Instances())
	require.Equal(t, 2, written)
	require.Contains(t, rtSchema(t, h.requests("ct")[1]), `"enum":["t1","t2",null]`)
}

func TestRunGuardHooks(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", nil)
	a := rtNoopAgent(t, h, "gh", nil)
	h.rt.Hooks.Guards = []Guard{rtGuard(func(c *Call, _ Tally) GuardVerdict {
		if n, _ := c.Args.Get("n"); rtJSON(t, n) == "2" {
			return GuardVerdict{Action: GuardDeny, Reason: "no twos"}
		}
		return GuardVerdict{Action: GuardWarn, Reason: "careful"}
	})}
	var summaries []TurnSummary
	h.rt.Hooks.OnTurn = append(h.rt.Hooks.OnTurn, func(s TurnSummary) { summaries = append(summaries, s) })
	h.script("gh", `{"calls":[{"_tool":"noop","n":1},{"_tool":"noop","n":2}],"output":null}`, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, []string{"guard_denied@noop"}, rtErrors(res.Context))
	require.Equal(t, "no twos", rtErrorOf(t, res.Context, CodeGuardDenied).Message)
	require.Contains(t, rtCodes(res.Warnings), WarnGuard)
	require.Equal(t, TurnSummary{Turn: 1, Dispatched: []string{"run1_call_1_0"}, Denied: []string{"run1_call_1_1"}}, summaries[0])
}

type rtGuard func(*Call, Tally) GuardVerdict

func (g rtGuard) Check(c *Call, t Tally) GuardVerdict { return g(c, t) }

func TestRunWithoutSinkOrHooks(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", nil)
	a := rtNoopAgent(t, h, "ns", nil)
	h.script("ns", rtNoop, rtDone)
	res, err := h.rt.Run(context.Background(), a, nil, RunOptions{RunID: "q"})
	require.NoError(t, err)
	require.Equal(t, FinishStop, res.FinishReason)
	require.Len(t, h.dispatched(), 1)
}

// BenchmarkRunNoHooks measures a two-turn run with one dispatch and neither
// a sink nor hooks: no event or observer payload is built (§4.10).
func BenchmarkRunNoHooks(b *testing.B) {
	h := newHarness(b)
	h.activity("noop", nil)
	a := rtNoopAgent(b, h, "bench", nil)
	h.model("bench", func(_ *llm.Request, n int) llmtest.Reply {
		if n%2 == 1 {
			return llmtest.Text(rtNoop)
		}
		return llmtest.Text(rtDone)
	})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.rt.Run(context.Background(), a, nil, RunOptions{RunID: "b"}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRunRespondToolFormat(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", nil)
	a := rtNoopAgent(t, h, "rf", func(a *Agent) { a.Model.StructuredOutput = "tool" })
	h.model("rf", func(_ *llm.Request, n int) llmtest.Reply {
		if n == 1 {
			return llmtest.Calls(llmtest.Call(RespondTool, rtNoop))
		}
		return llmtest.Calls(llmtest.Call(RespondTool, rtDone))
	})

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Len(t, h.dispatched(), 1)
	req := h.requests("rf")[0]
	require.Len(t, req.Tools, 1)
	require.Equal(t, RespondTool, req.Tools[0].Name)
}

func TestRunUnpathedDrop(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", func(*Call, Scoped) (Result, error) { return Result{Value: "ignored"}, nil })
	a := rtNoopAgent(t, h, "ud", func(a *Agent) { a.UnpathedResults = UnpathedDrop })
	h.script("ud", rtNoop, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Empty(t, res.Appended)
	require.Equal(t, `"ignored"`, h.eventsOf(EvToolResult)[0].Result)
}

// Sub-run approvals bubble up to the same approver with the parent's tool
// id; their scope events are forwarded (DG6, AP7).
func TestRunSubRunApprovalBubblesUp(t *testing.T) {
	h := newHarness(t)
	approver := rtApprove("")
	h.rt.Approver = approver
	h.activity("logEvent", nil)
	h.agent("child", "Log it.", []ToolDecl{rtLogEvent(t)}, nil)
	h.script("child", `{"calls":[{"_tool":"logEvent","_scopes":["input"],"eventName":"x"}],"output":null}`, `{"calls":[],"output":{"ok":true}}`)
	a := h.agent("parent", "", []ToolDecl{rtTool(t, "sub", "delegate", `{"type":"object","properties":{"_delegate":{"const":"child"},"note":{"type":"string"}}}`)}, nil)
	h.script("parent", `{"calls":[{"_tool":"sub","note":"hi"}],"output":null}`, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Equal(t, 1, approver.count())
	require.Equal(t, "run1_call_1_0", approver.reqs[0].ParentToolID)
	require.Equal(t, "run1_call_1_0/1_0", approver.reqs[0].ToolID)
	for _, e := range h.eventsOf(EvScopeRequest, EvScopeDecision) {
		require.Equal(t, 1, e.Depth)
		require.Equal(t, "run1_call_1_0", e.ParentToolID)
	}
	require.Len(t, h.eventsOf(EvScopeDecision), 1)
	d := h.dispatched()
	require.Len(t, d, 1)
	require.Equal(t, []string{"input"}, d[0].Scoped, "the child's own input, approved")
	require.Equal(t, `[{"type":"input","input":{"note":"hi"}}]`, rtJSON(t, d[0].View))
}

func TestRunDelegateFailed(t *testing.T) {
	h := newHarness(t)
	h.agent("broken", "", nil, nil)
	h.model("broken", func(*llm.Request, int) llmtest.Reply {
		return llmtest.Fail(&llm.Error{Kind: llm.BadRequest, Status: 400, Message: "bad schema"})
	})
	a := h.agent("parent", "", []ToolDecl{rtTool(t, "sub", "delegate", `{"type":"object","properties":{"_delegate":{"const":"broken"}}}`)}, nil)
	h.script("parent", `{"calls":[{"_tool":"sub"}],"output":null}`, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason, "a failing sub-run does not fail the parent")
	require.Equal(t, []string{"delegate_failed@sub"}, rtErrors(res.Context))
	require.Contains(t, rtErrorOf(t, res.Context, CodeDelegateFailed).Message, "bad schema")
}
