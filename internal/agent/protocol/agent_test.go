package protocol

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

func TestNormalizeDefaults(t *testing.T) {
	a := &Agent{Key: "k", Guard: &GuardConfig{MinMeanWeight: 30}}
	require.NoError(t, a.Normalize())
	require.Equal(t, Limits{MaxTurns: 16, MaxParallel: 4, MaxDelegateDepth: 3}, a.Limits)
	require.Equal(t, FormatAuto, a.ResponseFormat)
	require.Equal(t, DefaultReasoningField, a.ReasoningField)
	require.Equal(t, 1, a.RepairRetries)
	require.Equal(t, 20, a.ErrorWindow)
	require.Equal(t, UnpathedLog, a.UnpathedResults)
	require.Equal(t, Approval{RequestedScopes: ApprovalAsk, Timeout: 300 * time.Second, Calls: CallsAsk}, a.Approval)
	require.Equal(t, &GuardConfig{MinMeanWeight: 30, OnNoVotes: OnNoVotesAllow, DisagreementSpread: 50}, a.Guard)

	set := &Agent{Key: "k", Limits: Limits{MaxTurns: 5, MaxParallel: 2, MaxDelegateDepth: 1}, ReasoningField: "_why",
		RepairRetries: 3, ErrorWindow: 5, UnpathedResults: UnpathedDrop, ResponseFormat: FormatPrompt,
		Approval: Approval{RequestedScopes: ApprovalAuto, Timeout: time.Second}}
	require.NoError(t, set.Normalize())
	require.Equal(t, Limits{MaxTurns: 5, MaxParallel: 2, MaxDelegateDepth: 1}, set.Limits)
	require.Equal(t, "_why", set.ReasoningField)
	require.Equal(t, 3, set.RepairRetries)
	require.Equal(t, 5, set.ErrorWindow)
	require.Equal(t, UnpathedDrop, set.UnpathedResults)
	require.Equal(t, FormatPrompt, set.ResponseFormat)
	require.Equal(t, Approval{RequestedScopes: ApprovalAuto, Timeout: time.Second, Calls: CallsAsk}, set.Approval)

	neg := &Agent{Key: "k", RepairRetries: -1, ReasoningOff: true, ReasoningField: DefaultReasoningField}
	require.NoError(t, neg.Normalize())
	require.Equal(t, 0, neg.RepairRetries)
	require.Equal(t, "", neg.ReasoningField)
}

// LM2: ONESHOT agents get 2 turns, 1 without tools; an explicit limit wins.
func TestNormalizeOneshotMaxTurns(t *testing.T) {
	tools := []ToolDecl{paTool(t, "ping", "backend", `{"type":"object"}`)}
	with := &Agent{Key: "k", Oneshot: true, Tools: tools}
	require.NoError(t, with.Normalize())
	require.Equal(t, 2, with.Limits.MaxTurns)
	without := &Agent{Key: "k", Oneshot: true}
	require.NoError(t, without.Normalize())
	require.Equal(t, 1, without.Limits.MaxTurns)
	consult := &Agent{Key: "k", Oneshot: true, Advisors: []agentctx.Message{paAdvisor(t, `{"type":"advisor","id":"legal"}`)}}
	require.NoError(t, consult.Normalize())
	require.Equal(t, 2, consult.Limits.MaxTurns, "ConsultAdvisor is a tool")
	explicit := &Agent{Key: "k", Oneshot: true, Limits: Limits{MaxTurns: 4}}
	require.NoError(t, explicit.Normalize())
	require.Equal(t, 4, explicit.Limits.MaxTurns)
}

// A3 (a): an `on` conflict inside the agent file rejects the agent.
func TestVectorA3a_AgentFileOnConflictRejected(t *testing.T) {
	a := &Agent{Key: "k", Advisors: []agentctx.Message{
		paAdvisor(t, `{"type":"advisor","id":"riskAnalyst","on":"request","persona":"Risk lens"}`),
		paAdvisor(t, `{"type":"advisor","id":"riskAnalyst","answer":{"type":"object","properties":{"score":{"type":"number"}},"required":["score"]}}`),
		paAdvisor(t, `{"type":"advisor","id":"riskAnalyst","on":"finish"}`),
	}}
	err := a.Normalize()
	require.Error(t, err)
	require.ErrorIs(t, err, agentctx.ErrAdvisorOnConflict)

	ok := &Agent{Key: "k", Advisors: a.Advisors[:2]}
	require.NoError(t, ok.Normalize())
}

func TestNormalizeLoadErrors(t *testing.T) {
	adv := func(js string) *Agent {
		return &Agent{Advisors: []agentctx.Message{paAdvisor(t, js)}}
	}
	tool := func(name, kind, params string) *Agent {
		return &Agent{Tools: []ToolDecl{paTool(t, name, kind, params)}}
	}
	cases := []struct {
		name string
		a    *Agent
		want string
	}{
		{"answer id", adv(`{"type":"advisor","id":"x","on":"request","schema":{"type":"object","properties":{"id":{"type":"string"}}}}`), `answer property "id" is reserved`},
		{"answer calls", adv(`{"type":"advisor","id":"x","schema":{"type":"object","properties":{"calls":{"type":"string"}}}}`), `answer property "calls" is reserved`},
		{"answer _instance", adv(`{"type":"advisor","id":"x","schema":{"properties":{"_instance":{"type":"string"}}}}`), `answer property "_instance" is reserved`},
		{"bad on", adv(`{"type":"advisor","id":"x","on":"always"}`), `unknown on "always"`},
		{"not an advisor", &Agent{Advisors: []agentctx.Message{{Type: agentctx.TypeState}}}, "not an advisor message"},
		{"latent without _output", tool("l", "latent", `{"type":"object","properties":{"x":{"type":"string"}}}`), "must declare _output"},
		{"delegate without _delegate", tool("d", "delegate", `{"type":"object","properties":{}}`), "must declare _delegate"},
		{"internal provisioned scope", tool("s", "backend", `{"properties":{"_scopes":{"const":["_grants"]}}}`), "never scopeable"},
		{"system provisioned scope", tool("s", "backend", `{"properties":{"_scopes":{"type":"array","items":{"enum":["state"]},"provisioned":["system"]}}}`), "never scopeable"},
		{"system requested scope", tool("s", "backend", `{"properties":{"_scopes":{"type":"array","items":{"enum":["system"]}}}}`), "never scopeable"},
		{"bad scope", tool("s", "backend", `{"properties":{"_scopes":{"const":["a b"]}}}`), "neither a kind name"},
		{"unknown meta", tool("u", "backend", `{"properties":{"_secret":{"type":"string"}}}`), `unknown meta-property "_secret"`},
		{"bad activity", tool("u", "backend", `{"properties":{"_activity":{"type":"string"}}}`), `must be {"const":"<name>"}`},
		{"input path", tool("u", "backend", `{"properties":{"_outputPath":{"const":"†input.x"}}}`), "read-only"},
		{"reserved method", tool("u", "backend", `{"properties":{"_outputMethod":{"const":"assign"}}}`), "reserved"},
		{"method enum", tool("u", "backend", `{"properties":{"_outputMethod":{"type":"string"}}}`), `{"enum":[…]}`},
		{"delegate and activity", tool("u", "", `{"properties":{"_delegate":{"const":"a"},"_activity":{"const":"b"}}}`), "exclude each other"},
		{"backend delegate", tool("u", "backend", `{"properties":{"_delegate":{"const":"a"}}}`), "cannot declare _delegate"},
		{"reserved tool name", tool(ConsultAdvisor, "backend", `{}`), "reserved"},
		{"unknown file kind", tool("u", "plugin", `{}`), "unknown tool file kind"},
		{"bad format", &Agent{ResponseFormat: "xml"}, "unknown responseFormat"},
		{"bad reasoning field", &Agent{ReasoningField: "why"}, "reasoningField"},
		{"bad unpathed", &Agent{UnpathedResults: "keep"}, "unpathedResults"},
		{"bad approval", &Agent{Approval: Approval{RequestedScopes: "maybe"}}, "requestedScopes"},
		{"bad guard", &Agent{Guard: &GuardConfig{OnNoVotes: "ask"}}, "onNoVotes"},
		{"negative limit", &Agent{Limits: Limits{MaxTurns: -1}}, "negative"},
		{"bad output schema", &Agent{OutputSchema: "object"}, "outputSchema"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.a.Key = "k"
			err := tc.a.Normalize()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Contains(t, err.Error(), `protocol agent "k"`)
		})
	}
}

// Check resolves `_activity` and `_delegate` consts through the registry
// (DG1).
func TestCheckRegistry(t *testing.T) {
	reg := paReg("classifyV2")
	reg.agents["SummarizerAgent"] = &Agent{Key: "SummarizerAgent"}
	good := &Agent{Key: "k", Tools: []ToolDecl{
		paTool(t, "classify", "backend", `{"properties":{"_activity":{"const":"classifyV2"}}}`),
		paTool(t, "summarize", "delegate", `{"properties":{"_delegate":{"const":"SummarizerAgent"}}}`),
		paTool(t, "anon", "delegate", `{"properties":{"_delegate":{"const":"anonymous"}}}`),
	}}
	require.NoError(t, good.Normalize())
	require.NoError(t, good.Check(reg))

	bad := &Agent{Key: "k", Tools: []ToolDecl{
		paTool(t, "classify", "backend", `{"properties":{"_activity":{"const":"classifyV3"}}}`),
		paTool(t, "summarize", "delegate", `{"properties":{"_delegate":{"const":"Nobody"}}}`),
	}}
	require.NoError(t, bad.Normalize())
	err := bad.Check(reg)
	require.ErrorContains(t, err, `unknown activity "classifyV3"`)
	require.ErrorContains(t, err, `unknown delegate agent "Nobody"`)
	require.Error(t, bad.Check(nil))
}
