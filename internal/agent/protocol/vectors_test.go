package protocol

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// Acceptance vectors of AGENT_PROTOCOL §7 that exercise the runtime. Each
// test names its vector id.

const rtDone = `{"calls":[],"output":{"done":true}}`

func rtApprove(remember string) *rtRecordingApprover {
	return &rtRecordingApprover{fn: func(context.Context, ScopeRequest) (ScopeDecision, error) {
		return ScopeDecision{Verdict: VerdictApprove, Remember: remember}, nil
	}}
}

// S1: a latent call's requested scopes are a hint only: no approval, no
// filtering, no error.
func TestVectorS1_RunLatentScopesAreAHint(t *testing.T) {
	h := newHarness(t)
	send := rtTool(t, "sendMessage", "latent", `{"type":"object","properties":{
		"_scopes":{"type":"array","items":{"enum":["state","input"]}},
		"recipientId":{"type":"string"},"message":{"type":"string"},
		"_output":{"type":"object","properties":{"sent":{"type":"boolean"}},"required":["sent"]}},
		"required":["recipientId","message"]}`)
	a := h.agent("s1", "", []ToolDecl{send}, nil)
	approver := rtApprove("")
	h.rt.Approver = approver
	h.script("s1", `{"calls":[{"_tool":"sendMessage","_scopes":["input"],"recipientId":"user_B","message":"Welcome, Bob!","_output":{"sent":true}}],"output":null}`, rtDone)

	res := h.mustRun(a, rtCtx(t, `[{"type":"state","state":{"currentUser":{"id":"user_A","name":"Alice"}}},
		{"type":"input","input":{"mentionedUser":{"id":"user_B","name":"Bob"},"instruction":"Send a welcome message to the user mentioned above."}}]`), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Zero(t, approver.count(), "the approver is never asked for a latent call")
	require.Empty(t, rtErrors(res.Context))
	require.Empty(t, h.dispatched())
	wire := rtSchema(t, h.requests("s1")[0])
	i, j := strings.Index(wire, `"_scopes"`), strings.Index(wire, `"recipientId"`)
	require.True(t, i > 0 && i < j, "_scopes precedes the parameters: %s", wire)
	require.Contains(t, wire, `["state","input"]`)

	starts := h.eventsOf(EvToolStart)
	require.Len(t, starts, 1)
	require.Equal(t, ToolTypeLatent, starts[0].ToolType)
	require.Equal(t, "run1_call_1_0", starts[0].ToolID)
	results := h.eventsOf(EvToolResult)
	require.Len(t, results, 1)
	require.True(t, results[0].OK)
	require.Equal(t, `{"sent":true}`, results[0].Result)
	// No filtering: the next turn still renders both the state and the input.
	req2 := h.requests("s1")[1]
	all := req2.Messages[0].Content + rtUser(req2)
	require.Contains(t, all, "Alice")
	require.Contains(t, all, "Bob")
}

func rtLogEvent(t *testing.T) ToolDecl {
	return rtTool(t, "logEvent", "backend", `{"type":"object","properties":{
		"_scopes":{"type":"array","items":{"enum":["state","input"]}},"eventName":{"type":"string"}},"required":["eventName"]}`)
}

// S2: an activity gets exactly the approved scope, cleaned.
func TestVectorS2_RunActivityScopedView(t *testing.T) {
	h := newHarness(t)
	a := h.agent("s2", "", []ToolDecl{rtLogEvent(t)}, func(a *Agent) { a.Approval.RequestedScopes = ApprovalAuto })
	var stateJSON string
	var hasInput bool
	h.activity("logEvent", func(_ *Call, scoped Scoped) (Result, error) {
		raw, _ := scoped.Kind("state")
		stateJSON = string(raw)
		_, hasInput = scoped.Kind("input")
		return Result{}, nil
	})
	h.script("s2", `{"calls":[{"_tool":"logEvent","_scopes":["state"],"eventName":"user_login"}],"output":null}`, rtDone)

	res := h.mustRun(a, rtCtx(t, `[{"type":"state","state":{"userId":"u_42"}},{"type":"input","input":{"note":"x"}}]`), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	d := h.dispatched()
	require.Len(t, d, 1)
	require.Equal(t, []string{"state"}, d[0].Scoped)
	require.Equal(t, `[{"type":"state","state":{"userId":"u_42"}}]`, rtJSON(t, d[0].View))
	require.JSONEq(t, `{"userId":"u_42"}`, stateJSON)
	require.False(t, hasInput)
	decisions := h.eventsOf(EvScopeDecision)
	require.Len(t, decisions, 1)
	require.Equal(t, ByPolicy, decisions[0].Decision.By)
	require.Empty(t, h.eventsOf(EvScopeRequest), "policy auto asks nobody")
}

func rtSummarizer(t *testing.T, h *rtHarness, scopes string) *Agent {
	props := `"_delegate":{"const":"SummarizerAgent"},`
	if scopes != "" {
		props += `"_scopes":` + scopes + `,`
	}
	tool := rtTool(t, "summarizeArticle", "delegate", `{"type":"object","properties":{`+props+`"_outputPath":{"const":"†state.summary"}}}`)
	h.agent("SummarizerAgent", "You are an expert summarizer.", nil, func(a *Agent) {
		a.OutputSchema = rtObj(t, `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"]}`)
	})
	h.script("SummarizerAgent", `{"calls":[],"output":{"summary":"Short."}}`)
	h.script("parent", `{"calls":[{"_tool":"summarizeArticle"}],"output":null}`, rtDone)
	return h.agent("parent", "", []ToolDecl{tool}, nil)
}

const rtArticle = `[{"type":"state","state":{"articleText":"A long and complex article..."}}]`

// S3: a delegate sees its base and the provisioned scope; its output lands at
// the parent's path.
func TestVectorS3_RunDelegateContextAndResult(t *testing.T) {
	h := newHarness(t)
	parent := rtSummarizer(t, h, `{"const":["state"]}`)

	res := h.mustRun(parent, rtCtx(t, rtArticle), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Equal(t, []string{`[{"type":"system","message":"You are an expert summarizer."},{"type":"state","state":{"articleText":"A long and complex article..."}}]`},
		h.childStarts())
	got, ok := rtRead(t, res.Context, "", "†state.summary")
	require.True(t, ok)
	require.Equal(t, `{"summary":"Short."}`, got)
	results := h.eventsOf(EvToolResult)
	require.Len(t, results, 1)
	require.Equal(t, ToolTypeDelegate, h.eventsOf(EvToolStart)[0].ToolType)
	require.True(t, results[0].OK)
}

// S4: without scopes (absent, or const []) nothing of the parent crosses.
func TestVectorS4_RunDelegateWithoutScopes(t *testing.T) {
	for name, scopes := range map[string]string{"absent": "", "emptyConst": `{"const":[]}`} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			parent := rtSummarizer(t, h, scopes)
			res := h.mustRun(parent, rtCtx(t, rtArticle), RunOptions{})
			require.Equal(t, FinishStop, res.FinishReason)
			require.Equal(t, []string{`[{"type":"system","message":"You are an expert summarizer."}]`}, h.childStarts())
			reqs := h.requests("SummarizerAgent")
			require.Len(t, reqs, 1)
			for _, m := range reqs[0].Messages {
				require.NotContains(t, m.Content, "articleText")
			}
		})
	}
}

func rtTranslator(t *testing.T, h *rtHarness, scopes string, edit func(*Agent)) *Agent {
	tool := rtTool(t, "translate", "delegate", `{"type":"object","properties":{"_delegate":{"const":"translatorDelegate"},
		"_scopes":`+scopes+`,"_outputPath":{"const":"†state.translation"}}}`)
	h.agent("translatorDelegate", "You are a translator.", nil, func(a *Agent) {
		a.OutputSchema = rtObj(t, `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	})
	return h.agent("parent", "", []ToolDecl{tool}, edit)
}

const rtGreetings = `[{"type":"state","_instance":"①","state":{"text":"Hello"}},{"type":"state","_instance":"②","state":{"text":"Bonjour"}}]`

func rtTranslation(req *llm.Request) llmtest.Reply {
	if strings.Contains(rtUser(req), "Bonjour") {
		return llmtest.Text(`{"calls":[],"output":{"text":"Guten Tag"}}`)
	}
	return llmtest.Text(`{"calls":[],"output":{"text":"Hallo"}}`)
}

// rtNoCross checks that each sub-run saw only its own instance.
func rtNoCross(t *testing.T, h *rtHarness) {
	starts := h.childStarts()
	slices.Sort(starts)
	require.Equal(t, []string{
		`[{"type":"system","message":"You are a translator."},{"type":"state","state":{"text":"Bonjour"}}]`,
		`[{"type":"system","message":"You are a translator."},{"type":"state","state":{"text":"Hello"}}]`,
	}, starts)
	for _, req := range h.requests("translatorDelegate") {
		text := req.Messages[0].Content + rtUser(req)
		require.NotContains(t, text, "_instance")
		require.False(t, strings.Contains(text, "Hello") && strings.Contains(text, "Bonjour"), "cross-instance text: %s", text)
	}
}

// S5: instanced delegated calls run in parallel sub-runs, each seeing only
// its own instance, each writing into it.
func TestVectorS5_RunParallelInstancedDelegates(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := newHarness(t)
	parent := rtTranslator(t, h, `{"const":["state"]}`, nil)
	var arrived atomic.Int32
	both := make(chan struct{})
	h.model("translatorDelegate", func(req *llm.Request, _ int) llmtest.Reply {
		if arrived.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both: // both sub-runs started before either finishes
		case <-time.After(5 * time.Second):
			return llmtest.Fail(errors.New("the other sub-run never started"))
		}
		return rtTranslation(req)
	})
	h.script("parent", `{"calls":[{"_tool":"translate","_instance":"①"},{"_tool":"translate","_instance":"②"}],"output":null}`, rtDone)

	res := h.mustRun(parent, rtCtx(t, rtGreetings), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Empty(t, rtErrors(res.Context))
	rtNoCross(t, h)
	got, _ := rtRead(t, res.Context, "①", "†state.translation")
	require.Equal(t, `{"text":"Hallo"}`, got)
	got, _ = rtRead(t, res.Context, "②", "†state.translation")
	require.Equal(t, `{"text":"Guten Tag"}`, got)
	_, ok := rtRead(t, res.Context, "", "†state.translation")
	require.False(t, ok, "nothing written globally")
}

// S6: a delegate's Input carries the call parameters (no meta) and its
// input schema.
func TestVectorS6_RunDelegateInput(t *testing.T) {
	h := newHarness(t)
	tool := rtTool(t, "sendMessage", "delegate", `{"type":"object","properties":{"_delegate":{"const":"speaker_EN"},
		"userId":{"type":"string"},"text":{"type":"string"}},"required":["userId","text"]}`)
	h.agent("speaker_EN", "You handle messaging in English.", nil, func(a *Agent) {
		a.InputSchema = rtObj(t, `{"type":"object","properties":{"recipientId":{"type":"string"},"messageBody":{"type":"string"}}}`)
	})
	h.script("speaker_EN", `{"calls":[],"output":{"sent":true}}`)
	h.script("parent", `{"calls":[{"_tool":"sendMessage","_reasoningForCall":"greet","userId":"u_123","text":"Hello, world!"}],"output":null}`, rtDone)
	parent := h.agent("parent", "", []ToolDecl{tool}, nil)

	res := h.mustRun(parent, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Equal(t, []string{`[{"type":"system","message":"You handle messaging in English."},` +
		`{"type":"input","input":{"userId":"u_123","text":"Hello, world!"},"schema":{"type":"object","properties":{"recipientId":{"type":"string"},"messageBody":{"type":"string"}}}}]`},
		h.childStarts())
}

// rtA1 is the A1 setup: advisor riskAnalyst and three latent tools.
func rtA1(t *testing.T, h *rtHarness, key string) *Agent {
	var tools []ToolDecl
	for _, name := range []string{"deploy", "rollback", "delay"} {
		tools = append(tools, rtTool(t, name, "latent", `{"type":"object","properties":{
			"_output":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}`))
	}
	return h.agent(key, "You decide deployments.", tools, func(a *Agent) {
		a.Advisors = rtAdvisors(t, `[{"type":"advisor","id":"riskAnalyst","on":"request","scopes":["†state.deploymentHistory"],
			"role":"Assess the regression risk of a deployment.",
			"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}]`)
	})
}

func rtA1Turn1(calls string) string {
	return `{"advisors":[{"id":"riskAnalyst","thought":"Unit tests pass, integration tests missing; regression risk is high.","calls":` +
		calls + `}],"calls":[{"_tool":"delay","_reasoningForCall":"Risk analyst strongly advises waiting.","_output":{"ok":true}}],"output":null}`
}

const rtA1Final = `{"advisors":[{"id":"riskAnalyst","thought":"Waiting was right.","calls":"{}"}],"calls":[],"output":{"done":true}}`

// A1: the opinion precedes the calls; its snapshot comes before the turn's
// first tool.start; a request advisor is required again on turn 2.
func TestVectorA1_RunAdvisorBeforeCalls(t *testing.T) {
	h := newHarness(t)
	a := rtA1(t, h, "a1")
	h.script("a1", rtA1Turn1(`"{\"deploy\":10,\"rollback\":5,\"delay\":95}"`),
		`{"advisors":[],"calls":[],"output":{"done":true}}`, rtA1Final)

	res := h.mustRun(a, rtCtx(t, `[{"type":"state","state":{"deploymentHistory":["v1 ok"]}}]`), RunOptions{FirstOfChat: true})

	require.Equal(t, FinishStop, res.FinishReason)
	wire := rtSchema(t, h.requests("a1")[0])
	ia, ic, io := strings.Index(wire, `"advisors":{`), strings.Index(wire, `"calls":{"type":"array"`), strings.Index(wire, `"output":{`)
	require.True(t, ia >= 0 && ia < ic && ic < io, "advisors → calls → output: %s", wire)
	require.Contains(t, wire, `"required":["id","thought","calls"]`)

	trace := h.trace(EvAdvisorSnapshot, EvToolStart)
	require.Equal(t, []string{"advisor.snapshot:riskAnalyst", "tool.start:delay"}, trace[:2])
	snap := h.eventsOf(EvAdvisorSnapshot)[0]
	require.Equal(t, []string{"deploy:10", "rollback:5", "delay:95"}, rtWeights(snap.Opinion))
	require.Equal(t, 1, snap.Turn)

	reqs := h.requests("a1")
	require.Len(t, reqs, 3, "turn 2 without the entry is repaired")
	require.Contains(t, rtUser(reqs[2]), "could not be used")
	require.Contains(t, rtUser(reqs[2]), "riskAnalyst")
	var advice []string
	for _, m := range res.Appended {
		if m.Type == agentctx.TypeAdvice {
			advice = append(advice, rtJSON(t, m))
		}
	}
	require.Equal(t, `{"type":"advice","id":"riskAnalyst","turn":1,"opinion":{"thought":"Unit tests pass, integration tests missing; regression risk is high."},"weights":{"deploy":10,"rollback":5,"delay":95}}`, advice[0])
}

// A4: an on-demand advisor is reached through ConsultAdvisor: one extra
// model request, a consulted snapshot before the tool result, and the advice
// in the next turn's derived tier.
func TestVectorA4_RunConsultAdvisor(t *testing.T) {
	h := newHarness(t)
	publish := rtTool(t, "publish", "latent", `{"type":"object","properties":{"_output":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}`)
	a := h.agent("a4", "", []ToolDecl{publish}, func(a *Agent) {
		a.Advisors = rtAdvisors(t, `[{"type":"advisor","id":"legal","role":"Copyright lawyer.",
			"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}]`)
	})
	h.model("a4", func(req *llm.Request, n int) llmtest.Reply {
		switch n {
		case 1:
			return llmtest.Text(`{"calls":[{"_tool":"ConsultAdvisor","id":"legal","question":"Is the quote fair use?"}],"output":null}`)
		case 2:
			if !strings.Contains(rtUser(req), "Is the quote fair use?") {
				return llmtest.Fail(errors.New("request 2 is not the consultation"))
			}
			return llmtest.Text(`{"thought":"Short quote, attributed.","calls":"{\"publish\":70}"}`)
		}
		return llmtest.Text(rtDone)
	})

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	reqs := h.requests("a4")
	require.Len(t, reqs, 3)
	wire := rtSchema(t, reqs[0])
	require.NotContains(t, wire, `"advisors"`)
	require.Contains(t, wire, `"ConsultAdvisor"`)
	require.Contains(t, wire, `["legal"]`)
	consultSchema := rtSchema(t, reqs[1])
	require.NotContains(t, consultSchema, `"id"`)
	require.Contains(t, consultSchema, `"thought"`)
	require.Contains(t, rtUser(reqs[1]), "Copyright lawyer.")

	require.Equal(t, []string{"tool.start:ConsultAdvisor", "advisor.snapshot:legal", "tool.result:ConsultAdvisor"},
		h.trace(EvToolStart, EvAdvisorSnapshot, EvToolResult))
	snap := h.eventsOf(EvAdvisorSnapshot)[0]
	require.True(t, snap.Opinion.Consulted)
	require.Equal(t, "legal", snap.Opinion.ID)
	require.Equal(t, []string{"publish:70"}, rtWeights(snap.Opinion))
	result := h.eventsOf(EvToolResult)[0]
	require.True(t, result.OK)
	require.Contains(t, result.Result, "Short quote, attributed.")
	require.Contains(t, rtUser(reqs[2]), "Short quote, attributed.", "turn 2 shows the advice")
}

// A5: a start advisor is required on turn 1 of a fresh chat (repair), then
// offered; in a later run of the chat it is optional from turn 1.
func TestVectorA5_RunStartAdvisor(t *testing.T) {
	setup := func(t *testing.T, h *rtHarness) *Agent {
		note := rtTool(t, "note", "latent", `{"type":"object","properties":{"_output":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}`)
		return h.agent("a5", "", []ToolDecl{note}, func(a *Agent) {
			a.Advisors = rtAdvisors(t, `[{"type":"advisor","id":"kickoff","on":"start","role":"Plan the work.",
				"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}]`)
		})
	}
	noEntry := `{"advisors":[],"calls":[{"_tool":"note","_output":{"ok":true}}],"output":null}`
	withEntry := `{"advisors":[{"id":"kickoff","thought":"Start small.","calls":"{}"}],"calls":[{"_tool":"note","_output":{"ok":true}}],"output":null}`
	final := `{"advisors":[],"calls":[],"output":{"done":true}}`

	t.Run("freshChat", func(t *testing.T) {
		h := newHarness(t)
		a := setup(t, h)
		h.script("a5", noEntry, withEntry, final)
		res := h.mustRun(a, nil, RunOptions{FirstOfChat: true})
		require.Equal(t, FinishStop, res.FinishReason)
		reqs := h.requests("a5")
		require.Len(t, reqs, 3, "turn 1 repaired once, turn 2 accepted without the entry")
		require.NotContains(t, rtUser(reqs[0]), "could not be used")
		require.Contains(t, rtUser(reqs[1]), "could not be used")
		require.Contains(t, rtUser(reqs[1]), "kickoff")
		require.NotContains(t, rtUser(reqs[2]), "could not be used")
		steps := h.eventsOf(EvStep)
		require.Equal(t, []int{0, 1, 0}, []int{steps[0].Step.Repair, steps[1].Step.Repair, steps[2].Step.Repair})
		require.NotContains(t, rtCodes(res.Warnings), WarnAdvisorMissing)
	})
	t.Run("laterRun", func(t *testing.T) {
		h := newHarness(t)
		a := setup(t, h)
		h.script("a5", `{"advisors":[],"calls":[],"output":{"done":true}}`)
		res := h.mustRun(a, nil, RunOptions{FirstOfChat: false})
		require.Equal(t, FinishStop, res.FinishReason)
		require.Len(t, h.requests("a5"), 1)
	})
}

// A6: an instanced required advisor needs one entry per instance; a missing
// one is repaired; snapshots carry the instance.
func TestVectorA6_RunInstancedAdvisor(t *testing.T) {
	h := newHarness(t)
	a := h.agent("a6", "", nil, func(a *Agent) {
		a.Advisors = rtAdvisors(t, `[{"type":"advisor","id":"styleKeeper","on":"request","isInstanced":true,"role":"Keep the style.",
			"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}]`)
	})
	h.script("a6",
		`{"advisors":[{"id":"styleKeeper","_instance":"①","thought":"fine","calls":"{}"}],"calls":[],"output":{"done":true}}`,
		`{"advisors":[{"id":"styleKeeper","_instance":"①","thought":"fine","calls":"{}"},{"id":"styleKeeper","_instance":"②","thought":"terse","calls":"{}"}],"calls":[],"output":{"done":true}}`)

	res := h.mustRun(a, rtCtx(t, rtGreetings), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	reqs := h.requests("a6")
	require.Len(t, reqs, 2)
	require.Contains(t, rtSchema(t, reqs[0]), `["①","②"]`)
	require.Contains(t, rtUser(reqs[1]), "could not be used")
	require.Contains(t, rtUser(reqs[1]), "②")
	var instances []string
	for _, e := range h.eventsOf(EvAdvisorSnapshot) {
		instances = append(instances, e.Instance)
		require.Equal(t, e.Instance, e.Opinion.Instance)
	}
	require.Equal(t, []string{"①", "②"}, instances)
}

// A7: weights strings of any quality never fail the turn.
func TestVectorA7_RunTolerantWeights(t *testing.T) {
	cases := []struct {
		name    string
		calls   string
		weights []string
		raw     string
		warning Code
	}{
		{"notJSON", `"not json"`, nil, "not json", WarnWeightsUnparsable},
		{"lenient", `"{deploy: '10', delay: 95,}"`, []string{"deploy:10", "delay:95"}, "", WarnWeightsLenient},
		{"clamped", `"{\"deploy\":140}"`, []string{"deploy:100"}, "", WarnWeightClamped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			a := rtA1(t, h, "a7")
			h.script("a7", rtA1Turn1(c.calls), rtA1Final)
			res := h.mustRun(a, nil, RunOptions{})
			require.Equal(t, FinishStop, res.FinishReason)
			require.Empty(t, rtErrors(res.Context))
			snap := h.eventsOf(EvAdvisorSnapshot)[0]
			require.Equal(t, c.weights, rtWeights(snap.Opinion))
			require.Equal(t, c.raw, snap.Opinion.RawCalls)
			require.Contains(t, rtCodes(snap.Opinion.Warnings), c.warning)
			require.Len(t, h.eventsOf(EvToolResult), 1, "the delay call still ran")
		})
	}
}

// T2 (c): `_activity` routes the dispatch to another registered activity.
func TestVectorT2c_RunActivityOverride(t *testing.T) {
	h := newHarness(t)
	classify := rtTool(t, "classify", "", `{"type":"object","properties":{"_activity":{"const":"classifyV2"},
		"text":{"type":"string"},"_output":{"type":"object","properties":{"label":{"type":"string"}}}},"required":["text"]}`)
	h.activity("classify", func(*Call, Scoped) (Result, error) { return Result{Value: "v1"}, nil })
	h.activity("classifyV2", func(*Call, Scoped) (Result, error) {
		return Result{Value: map[string]any{"label": "greeting"}}, nil
	})
	a := h.agent("t2", "", []ToolDecl{classify}, nil)
	h.script("t2", `{"calls":[{"_tool":"classify","text":"hi"}],"output":null}`, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	d := h.dispatched()
	require.Len(t, d, 1)
	require.Equal(t, "classifyV2", d[0].Activity)
	require.Equal(t, KindExplicit, d[0].Kind)
	require.Equal(t, `{"text":"hi"}`, d[0].Args)
	got, ok := rtRead(t, res.Context, "", "†data.results")
	require.True(t, ok, "an unpathed result is logged")
	require.Equal(t, `[{"turn":1,"tool":"classify","result":{"label":"greeting"}}]`, got)
}

// I1: instanced calls read and write their own instance only.
func TestVectorI1_RunInstancedCalls(t *testing.T) {
	h := newHarness(t)
	tool := rtTool(t, "moderateComment", "backend", `{"type":"object","properties":{"_outputPath":{"const":"†state.moderation"},
		"decision":{"type":"string","enum":["approve","reject"]}},"required":["decision"]}`)
	h.activity("moderateComment", func(call *Call, _ Scoped) (Result, error) {
		v, _ := call.Args.Get("decision")
		return Result{Value: v}, nil
	})
	a := h.agent("i1", "", []ToolDecl{tool}, nil)
	h.script("i1", `{"calls":[{"_tool":"moderateComment","_instance":"①","decision":"approve"},
		{"_tool":"moderateComment","_instance":"②","decision":"approve"},
		{"_tool":"moderateComment","_instance":"③","decision":"reject"}],"output":null}`, rtDone)

	res := h.mustRun(a, rtCtx(t, `[{"type":"input","_instance":"①","input":{"comment":"Great post!"}},
		{"type":"input","_instance":"②","input":{"comment":"Thanks, helpful."}},
		{"type":"input","_instance":"③","input":{"comment":"Buy cheap pills here"}}]`), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Contains(t, rtSchema(t, h.requests("i1")[0]), `"enum":["①","②","③",null]`)
	d := h.dispatched()
	require.Len(t, d, 3)
	for i, inst := range []string{"①", "②", "③"} {
		require.Equal(t, inst, d[i].Instance)
	}
	for inst, want := range map[string]string{"①": `"approve"`, "②": `"approve"`, "③": `"reject"`} {
		got, ok := rtRead(t, res.Context, inst, "†state.moderation")
		require.True(t, ok)
		require.Equal(t, want, got, inst)
	}
	_, ok := rtRead(t, res.Context, "", "†state")
	require.False(t, ok, "global state untouched")
}

// I2: a push lands in the call's instance only; an unknown instance is
// refused and nothing is written.
func TestVectorI2_RunInstanceTargets(t *testing.T) {
	setup := func(t *testing.T) (*rtHarness, *Agent) {
		h := newHarness(t)
		tool := rtTool(t, "updateTask", "backend", `{"type":"object","properties":{"_outputPath":{"const":"†state.tasks"},
			"_outputMethod":{"const":"push"},"task":{"type":"string"},"priority":{"type":"string"}},"required":["task","priority"]}`)
		h.activity("updateTask", func(call *Call, _ Scoped) (Result, error) { return Result{Value: call.Args}, nil })
		return h, h.agent("i2", "", []ToolDecl{tool}, nil)
	}
	initial := `[{"type":"input","input":{"message":"Give employee B a high-priority task: prepare the Q3 report."}},
		{"type":"state","_instance":"employee_A","state":{"tasks":[]}},{"type":"state","_instance":"employee_B","state":{"tasks":[]}}]`

	t.Run("a", func(t *testing.T) {
		h, a := setup(t)
		h.script("i2", `{"calls":[{"_tool":"updateTask","_instance":"employee_B","task":"Prepare the Q3 report","priority":"high"}],"output":null}`, rtDone)
		res := h.mustRun(a, rtCtx(t, initial), RunOptions{})
		got, _ := rtRead(t, res.Context, "employee_B", "†state.tasks")
		require.Equal(t, `[{"task":"Prepare the Q3 report","priority":"high"}]`, got)
		got, _ = rtRead(t, res.Context, "employee_A", "†state.tasks")
		require.Equal(t, `[]`, got)
	})
	t.Run("b", func(t *testing.T) {
		h, a := setup(t)
		h.script("i2", `{"calls":[{"_tool":"updateTask","_instance":"employee_C","task":"Prepare the Q3 report","priority":"high"}],"output":null}`, rtDone)
		res := h.mustRun(a, rtCtx(t, initial), RunOptions{})
		require.Equal(t, []string{"instance_unknown@updateTask"}, rtErrors(res.Context))
		require.Empty(t, h.dispatched())
		for _, m := range res.Appended {
			require.False(t, m.IsWrite(), "nothing written")
		}
		require.Contains(t, rtUser(h.requests("i2")[1]), "instance_unknown")
	})
}

// L1: the limit notice, the output-only final turn, one repair, and the
// ledger instead of a failure.
func TestVectorL1_RunMaxTurnsLedger(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", nil)
	a := h.agent("l1", "", []ToolDecl{rtTool(t, "noop", "backend", `{"type":"object","properties":{}}`)},
		func(a *Agent) { a.Limits.MaxTurns = 3 })
	call := `{"calls":[{"_tool":"noop"}],"output":null}`
	h.script("l1", call, call, `{"output":null}`, `{"output":null}`)

	res, err := h.run(a, nil, RunOptions{})

	require.NoError(t, err)
	require.False(t, res.HasOutput)
	require.Equal(t, FinishMaxTurns, res.FinishReason)
	reqs := h.requests("l1")
	require.Len(t, reqs, 4)
	notice := "turn 2 of 3; the next turn is the last and accepts only `output`"
	require.NotContains(t, rtUser(reqs[0]), notice)
	require.Contains(t, rtUser(reqs[1]), notice)
	final := rtSchema(t, reqs[2])
	require.NotContains(t, final, `"calls"`)
	require.NotContains(t, final, `null`, "the final output is not nullable")
	require.Contains(t, rtUser(reqs[3]), "could not be used")
	l := res.Ledger
	require.NotNil(t, l)
	require.Equal(t, "maxTurns", l.Cap)
	require.Equal(t, 3, l.Turns)
	require.Equal(t, 4, l.ModelCalls)
	require.Equal(t, 1, l.Repairs)
	require.Equal(t, 2, l.ToolCalls)
	require.Equal(t, []string{"solution_invalid"}, l.LastErrors)
	complete := h.eventsOf(EvComplete)
	require.Len(t, complete, 1)
	require.Equal(t, FinishMaxTurns, complete[0].FinishReason)
	require.Equal(t, *l, *complete[0].Ledger)
}

// O1: an activity result is written at the prescribed path as an
// append-only write with hidden fields that are never rendered.
func TestVectorO1_RunOutputPathWrite(t *testing.T) {
	h := newHarness(t)
	tool := rtTool(t, "updateUserStatus", "backend", `{"type":"object","properties":{"_outputPath":{"const":"†data.user.status"},
		"userId":{"type":"string"}},"required":["userId"]}`)
	h.activity("updateUserStatus", func(*Call, Scoped) (Result, error) { return Result{Value: "inactive"}, nil })
	var written []string
	h.rt.Hooks.OnWrite = append(h.rt.Hooks.OnWrite, func(m agentctx.Message) { written = append(written, rtJSON(t, m)) })
	a := h.agent("o1", "", []ToolDecl{tool}, nil)
	h.script("o1", `{"calls":[{"_tool":"updateUserStatus","userId":"u1"}],"output":null}`, rtDone)

	res := h.mustRun(a, rtCtx(t, `[{"type":"data","data":{"user":{"name":"Alex","status":"active"}}}]`), RunOptions{})

	want := `{"type":"data","kind":"data","_path":"user.status","data":"inactive","_outputMethod":"set",` +
		`"_call":{"toolId":"run1_call_1_0","tool":"updateUserStatus","turn":1,"index":0},"_date":"2026-01-05T10:00:00Z"}`
	require.Equal(t, []string{want}, written)
	require.Equal(t, want, rtJSON(t, res.Appended[0]))
	got, _ := rtRead(t, res.Context, "", "†data.user.status")
	require.Equal(t, `"inactive"`, got)
	got, _ = rtRead(t, res.Context, "", "†data.user.name")
	require.Equal(t, `"Alex"`, got)
	req2 := h.requests("o1")[1]
	for _, m := range req2.Messages {
		for _, hidden := range agentctx.HiddenKeys {
			require.NotContains(t, m.Content, hidden)
		}
	}
	require.Contains(t, rtUser(req2), "inactive")
}

// X4: the guard denies a low-confidence edit; the other call runs; OnAdvice
// observes the tally.
func TestVectorX4_RunGuardDenies(t *testing.T) {
	h := newHarness(t)
	h.activity("run_cursor_agent", func(*Call, Scoped) (Result, error) { return Result{}, nil })
	h.activity("replace_text", nil)
	var reports []AdviceReport
	h.rt.Hooks.OnAdvice = append(h.rt.Hooks.OnAdvice, func(r AdviceReport) { reports = append(reports, r) })
	a := h.agent("x4", "", []ToolDecl{
		rtTool(t, "replace_text", "backend", `{"type":"object","properties":{"pointer":{"type":"string"},"newMarkdown":{"type":"string"}},"required":["pointer","newMarkdown"]}`),
		rtTool(t, "run_cursor_agent", "backend", `{"type":"object","properties":{"task":{"type":"string"}},"required":["task"]}`),
	}, func(a *Agent) {
		a.Guard = &GuardConfig{MinMeanWeight: 30, Tools: []string{"replace_text"}}
		a.Advisors = rtAdvisors(t, `[{"type":"advisor","id":"editGate","on":"request","role":"Judge the evidence.",
			"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}]`)
	})
	h.script("x4", `{"advisors":[{"id":"editGate","thought":"Keep reading.","calls":"{\"replace_text\":12,\"run_cursor_agent\":80}"}],
		"calls":[{"_tool":"replace_text","pointer":"41:3.2.p4","newMarkdown":"x"},{"_tool":"run_cursor_agent","task":"find"}],"output":null}`,
		`{"advisors":[{"id":"editGate","thought":"Done.","calls":"{}"}],"calls":[],"output":{"done":true}}`)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	d := h.dispatched()
	require.Len(t, d, 1)
	require.Equal(t, "run_cursor_agent", d[0].Tool)
	var denied *Event
	for _, e := range h.eventsOf(EvToolResult) {
		if e.ToolName == "replace_text" {
			denied = &e
		}
	}
	require.NotNil(t, denied)
	require.False(t, denied.OK)
	require.Equal(t, CodeGuardDenied, denied.Code)
	e := rtErrorOf(t, res.Context, CodeGuardDenied)
	require.Equal(t, "advisor mean 12 < 30 for replace_text", e.Message)
	require.Contains(t, rtUser(h.requests("x4")[1]), "advisor mean 12 < 30 for replace_text")
	require.NotEmpty(t, reports)
	require.Equal(t, 1, reports[0].Turn)
	tally := TallyFor(reports[0].Tallies, "replace_text")
	require.Equal(t, 1, tally.N)
	require.Equal(t, 12.0, tally.Mean)
}

// rtCursorSetup is the §6.2 tool with a cursorAgent delegate (X5, X6).
func rtCursorSetup(t *testing.T, h *rtHarness, edit func(*Agent)) *Agent {
	tool := rtTool(t, "run_cursor_agent", "delegate", `{"type":"object","properties":{"_delegate":{"const":"cursorAgent"},
		"_scopes":{"type":"array","items":{"enum":["characters","glossary","styleGuide"]},"provisioned":["input"]},
		"_outputPath":{"const":"†state.search"},
		"cursorName":{"type":"string"},"task":{"type":"string"},
		"context":{"type":["string","null"]},"startAfterPointer":{"type":["string","null"]},
		"maxEvidenceCount":{"type":["integer","null"]}},"required":["cursorName","task"]}`)
	h.agent("cursorAgent", "Scan the book with the cursor.", nil, func(a *Agent) {
		a.OutputSchema = rtObj(t, `{"type":"object","properties":{"found":{"type":"boolean"}},"required":["found"]}`)
	})
	h.script("cursorAgent", `{"calls":[],"output":{"found":true}}`)
	h.script("editor", `{"calls":[{"_tool":"run_cursor_agent","_scopes":["characters","glossary"],"cursorName":"k1","task":"first mention"}],"output":null}`, rtDone)
	return h.agent("editor", "", []ToolDecl{tool}, edit)
}

const rtBook = `[{"type":"input","input":{"message":"Find the first mention of the professor."}},
	{"type":"data","kind":"characters","data":{"prof_orlov":"Ilya Orlov, astronomer"}},
	{"type":"data","kind":"glossary","data":{"cursor":"a reading position"}}]`

// X5: the approver narrows the request; the events are ordered; the sub-run
// sees the provisioned input and the granted glossary only.
func TestVectorX5_RunApprovalNarrows(t *testing.T) {
	h := newHarness(t)
	approver := &rtRecordingApprover{fn: func(context.Context, ScopeRequest) (ScopeDecision, error) {
		return ScopeDecision{Verdict: VerdictNarrow, Scopes: []string{"glossary"}, Remember: RememberRun}, nil
	}}
	h.rt.Approver = approver
	a := rtCursorSetup(t, h, nil)
	var decided []ScopeDecision
	h.rt.Hooks.OnScopeDecision = append(h.rt.Hooks.OnScopeDecision, func(_ ScopeRequest, d ScopeDecision) { decided = append(decided, d) })

	res := h.mustRun(a, rtCtx(t, rtBook), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	var top []string
	for _, e := range h.eventsOf(EvToolStart, EvScopeRequest, EvScopeDecision, EvToolResult) {
		if e.Depth == 0 {
			top = append(top, string(e.Type)+":"+e.ToolName)
		}
	}
	require.Equal(t, []string{"tool.start:run_cursor_agent", "scope.request:run_cursor_agent",
		"scope.decision:run_cursor_agent", "tool.result:run_cursor_agent"}, top)
	req := h.eventsOf(EvScopeRequest)[0].Request
	require.Equal(t, "run1_call_1_0", req.ToolID)
	require.Equal(t, []string{"input"}, req.Provisioned)
	require.Equal(t, []string{"characters", "glossary"}, req.Requested)
	require.Equal(t, "characters", req.Preview[0].Scope)
	require.Equal(t, []string{"prof_orlov"}, req.Preview[0].Keys)
	require.Positive(t, req.Preview[0].Bytes)
	dec := h.eventsOf(EvScopeDecision)[0].Decision
	require.Equal(t, VerdictNarrow, dec.Verdict)
	require.Equal(t, []string{"input", "glossary"}, dec.Scopes)
	require.Equal(t, ByUser, dec.By)
	require.Equal(t, []ScopeDecision{*dec}, decided)

	starts := h.childStarts()
	require.Len(t, starts, 1)
	require.Equal(t, `[{"type":"system","message":"Scan the book with the cursor."},`+
		`{"type":"input","input":{"message":"Find the first mention of the professor."}},`+
		`{"type":"data","kind":"glossary","data":{"cursor":"a reading position"}},`+
		`{"type":"input","input":{"cursorName":"k1","task":"first mention"}}]`, starts[0])
	for _, r := range h.requests("cursorAgent") {
		require.NotContains(t, r.Messages[0].Content+rtUser(r), "prof_orlov")
	}
	got, _ := rtRead(t, res.Context, "", "†state.search")
	require.Equal(t, `{"found":true}`, got)
}

// X6: a denial (a) or a timeout (b) refuses the call; the error is fed back
// and the run continues.
func TestVectorX6_RunApprovalDeniedOrTimedOut(t *testing.T) {
	defer goleak.VerifyNone(t)
	t.Run("deny", func(t *testing.T) {
		h := newHarness(t)
		h.rt.Approver = &rtRecordingApprover{fn: func(context.Context, ScopeRequest) (ScopeDecision, error) {
			return ScopeDecision{Verdict: VerdictDeny, Reason: "private"}, nil
		}}
		a := rtCursorSetup(t, h, nil)
		res := h.mustRun(a, rtCtx(t, rtBook), RunOptions{})
		require.Equal(t, FinishStop, res.FinishReason)
		require.Empty(t, h.childStarts(), "not dispatched")
		e := rtErrorOf(t, res.Context, CodeScopeDenied)
		require.Contains(t, e.Message, "private")
		require.Contains(t, rtUser(h.requests("editor")[1]), "scope_denied")
		require.Equal(t, VerdictDeny, h.eventsOf(EvScopeDecision)[0].Decision.Verdict)
	})
	t.Run("timeout", func(t *testing.T) {
		h := newHarness(t)
		h.rt.Approver = &rtRecordingApprover{fn: func(ctx context.Context, _ ScopeRequest) (ScopeDecision, error) {
			<-ctx.Done() // nobody answers
			return ScopeDecision{}, ctx.Err()
		}}
		a := rtCursorSetup(t, h, func(a *Agent) { a.Approval.Timeout = 50 * time.Millisecond })
		res := h.mustRun(a, rtCtx(t, rtBook), RunOptions{})
		require.Equal(t, FinishStop, res.FinishReason)
		require.Equal(t, 50*time.Millisecond, h.eventsOf(EvScopeRequest)[0].Request.Timeout)
		dec := h.eventsOf(EvScopeDecision)[0].Decision
		require.Equal(t, VerdictTimeout, dec.Verdict)
		require.Equal(t, []string{"input"}, dec.Scopes, "only the provisioned scopes")
		require.Empty(t, h.childStarts())
		rtErrorOf(t, res.Context, CodeScopeDenied)
	})
}

// X7: a scope outside the enum is refused at parse time: no approval, no
// activity.
func TestVectorX7_RunScopeNotAllowed(t *testing.T) {
	h := newHarness(t)
	approver := rtApprove("")
	h.rt.Approver = approver
	h.activity("logEvent", nil)
	a := h.agent("x7", "", []ToolDecl{rtLogEvent(t)}, nil)
	h.script("x7", `{"calls":[{"_tool":"logEvent","_scopes":["secrets"],"eventName":"x"}],"output":null}`, rtDone)

	res := h.mustRun(a, rtCtx(t, `[{"type":"state","state":{"userId":"u_42"}}]`), RunOptions{})

	require.Equal(t, []string{"scope_not_allowed@logEvent"}, rtErrors(res.Context))
	require.Zero(t, approver.count())
	require.Empty(t, h.dispatched())
}

// X8: a latent write unblocks a sibling in the same drain; a reference that
// never appears strands its call.
func TestVectorX8_RunLatentFirstAndReferences(t *testing.T) {
	h := newHarness(t)
	h.activity("send", nil)
	h.activity("ping", nil)
	a := h.agent("x8", "", []ToolDecl{
		rtTool(t, "draft", "latent", `{"type":"object","properties":{"_outputPath":{"const":"†state.draft"},
			"_output":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}}`),
		rtTool(t, "send", "backend", `{"type":"object","properties":{"body":{"type":"string"}},"required":["body"]}`),
		rtTool(t, "ping", "backend", `{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`),
	}, nil)
	h.script("x8", `{"calls":[{"_tool":"send","body":"†state.draft.text"},{"_tool":"draft","_output":{"text":"Hi"}},
		{"_tool":"ping","x":"†state.nothing"}],"output":null}`, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	d := h.dispatched()
	require.Len(t, d, 1)
	require.Equal(t, "send", d[0].Tool)
	require.Equal(t, `{"body":"Hi"}`, d[0].Args)
	require.Equal(t, "run1_call_1_0", d[0].ToolID)
	require.Equal(t, []string{"tool.start:send", "tool.start:draft", "tool.start:ping", "tool.result:draft", "tool.result:send", "tool.result:ping"},
		h.trace(EvToolStart, EvToolResult))
	got, _ := rtRead(t, res.Context, "", "†state.draft")
	require.Equal(t, `{"text":"Hi"}`, got)
	require.Equal(t, []string{"unresolved_reference@ping"}, rtErrors(res.Context))
	e := rtErrorOf(t, res.Context, CodeUnresolvedReference)
	require.Contains(t, e.Message, "†state.nothing")
	require.Equal(t, `{"waitingOn":["†state.nothing"]}`, rtJSON(t, e.Details))
}

// X9: a delegate that never returns output gives delegate_no_result with its
// ledger; the parent continues.
func TestVectorX9_RunDelegateNoResult(t *testing.T) {
	h := newHarness(t)
	h.activity("noop", nil)
	h.agent("looper", "Loop.", []ToolDecl{rtTool(t, "noop", "backend", `{"type":"object","properties":{}}`)},
		func(a *Agent) { a.Limits.MaxTurns = 2 })
	h.script("looper", `{"calls":[{"_tool":"noop"}],"output":null}`, `{"output":null}`, `{"output":null}`)
	a := h.agent("parent", "", []ToolDecl{rtTool(t, "loop", "delegate", `{"type":"object","properties":{"_delegate":{"const":"looper"}}}`)}, nil)
	h.script("parent", `{"calls":[{"_tool":"loop"}],"output":null}`, rtDone)

	res := h.mustRun(a, nil, RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.True(t, res.HasOutput)
	require.Equal(t, []string{"delegate_no_result@loop"}, rtErrors(res.Context))
	e := rtErrorOf(t, res.Context, CodeDelegateNoResult)
	details, ok := e.Details.(*agentctx.Object)
	require.True(t, ok)
	ledger, _ := details.Get("ledger")
	l := ledger.(*agentctx.Object)
	capv, _ := l.Get("cap")
	turns, _ := l.Get("turns")
	require.Equal(t, "maxTurns", capv)
	require.Equal(t, "2", rtJSON(t, turns))
	require.Contains(t, rtUser(h.requests("parent")[1]), "delegate_no_result")
	require.Len(t, h.requests("looper"), 3)
	// The child's tool events are not forwarded (DG6); its steps are.
	for _, e := range h.eventsOf(EvToolStart, EvToolResult) {
		require.Zero(t, e.Depth)
	}
	var childSteps int
	for _, e := range h.eventsOf(EvStep) {
		if e.Depth == 1 {
			childSteps++
			require.Equal(t, "delegate", e.Step.Stage)
			require.Equal(t, "run1_call_1_0", e.ParentToolID)
		}
	}
	require.Equal(t, 3, childSteps)
}

// X10: fan-out approval: one prompt for two instanced calls when the user
// remembers the grant for the run; each sub-run sees its own state only.
func TestVectorX10_RunFanOutApproval(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := newHarness(t)
	approver := rtApprove(RememberRun)
	h.rt.Approver = approver
	parent := rtTranslator(t, h, `{"type":"array","items":{"enum":["state"]}}`, nil)
	h.model("translatorDelegate", func(req *llm.Request, _ int) llmtest.Reply { return rtTranslation(req) })
	h.script("parent", `{"calls":[{"_tool":"translate","_instance":"①","_scopes":["state"]},{"_tool":"translate","_instance":"②","_scopes":["state"]}],"output":null}`, rtDone)

	res := h.mustRun(parent, rtCtx(t, rtGreetings), RunOptions{})

	require.Equal(t, FinishStop, res.FinishReason)
	require.Equal(t, 1, approver.count())
	require.Len(t, h.eventsOf(EvScopeRequest), 1)
	var by []string
	for _, e := range h.eventsOf(EvScopeDecision) {
		by = append(by, e.Decision.By)
		require.Equal(t, VerdictApprove, e.Decision.Verdict)
	}
	require.Equal(t, []string{ByUser, ByMemory}, by)
	rtNoCross(t, h)
	require.Empty(t, res.Grants, "run grants are not chat grants")
}
