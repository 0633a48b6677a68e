package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/protocol"
)

// scopeReq is the request of the X5 vector: input provisioned, characters
// and glossary requested.
var scopeReq = protocol.ScopeRequest{RunID: "r1", ToolID: "r1_call_1_0", Tool: "run_cursor_agent",
	Provisioned: []string{"input"}, Requested: []string{"characters", "glossary"}}

// AGENT_PROTOCOL § 5.4: what a client may post as a scope decision.
func TestParseDecision(t *testing.T) {
	ok := []struct {
		params string
		want   protocol.ScopeDecision
	}{
		{`{"decision":"approve"}`, protocol.ScopeDecision{Verdict: "approve", Scopes: []string{"characters", "glossary"}, By: "user"}},
		{`{"decision":"narrow","scopes":["glossary","input","glossary"],"reason":"r","remember":"run"}`,
			protocol.ScopeDecision{Verdict: "narrow", Scopes: []string{"glossary"}, Reason: "r", Remember: "run", By: "user"}},
		{`{"decision":"deny","reason":"private","scopes":null,"remember":null}`,
			protocol.ScopeDecision{Verdict: "deny", Reason: "private", By: "user"}},
		{`{"decision":"narrow","scopes":[]}`, protocol.ScopeDecision{Verdict: "narrow", By: "user"}},
	}
	for _, tc := range ok {
		d, err := parseDecision(json.RawMessage(tc.params), scopeReq)
		require.NoError(t, err, tc.params)
		require.Equal(t, tc.want, d, tc.params)
	}
	bad := map[string]string{
		`[1]`:                    "params must be a JSON object",
		`{}`:                     "decision is required (approve, deny or narrow)",
		`{"decision":"timeout"}`: `decision must be approve, deny or narrow, not "timeout"`,
		`{"decision":1}`:         "decision must be a string",
		`{"decision":"narrow"}`:  "narrow needs scopes: the requested scopes to grant",
		`{"decision":"narrow","scopes":"glossary"}`:   "scopes must be an array of strings",
		`{"decision":"narrow","scopes":["secrets"]}`:  `scope "secrets" is not part of the request (requested: characters, glossary)`,
		`{"decision":"approve","scopes":["secrets"]}`: `scope "secrets" is not part of the request (requested: characters, glossary)`,
		`{"decision":"approve","remember":"forever"}`: `remember must be once, run or chat, not "forever"`,
		`{"decision":"approve","scope":["x"]}`:        `unknown field "scope"`,
		`{"decision":"deny","reason":false}`:          "reason must be a string",
	}
	for params, want := range bad {
		_, err := parseDecision(json.RawMessage(params), scopeReq)
		require.EqualError(t, err, want, params)
	}
}

// AGENT_PROTOCOL § 5.4: the pending key runId#scope:<toolId>; an invalid
// decision is refused and keeps the entry, a valid one releases it once;
// another key is unmatched; a second registration of the same key fails.
func TestApprovalRoundTrip(t *testing.T) {
	e := &Engine{}
	w := newRunWaits(e, "r1")
	pw := w.openScope(scopeReq)
	require.Same(t, pw, w.openScope(scopeReq), "one registration per call")
	require.True(t, e.waits.pending("r1#scope:r1_call_1_0"))

	matched, err := e.SubmitScope("r1", "scope:other", json.RawMessage(`{"decision":"approve"}`))
	require.False(t, matched)
	require.NoError(t, err)
	matched, err = e.SubmitScope("r1", "r1_call_1_0", json.RawMessage(`{"decision":"approve"}`))
	require.False(t, matched, "without the scope: prefix it is not an approval")
	require.NoError(t, err)
	matched, err = e.SubmitScope("r1", "scope:r1_call_1_0", json.RawMessage(`{"decision":"narrow","scopes":["secrets"]}`))
	require.True(t, matched)
	require.ErrorContains(t, err, `scope "secrets" is not part of the request`)
	require.True(t, e.waits.pending("r1#scope:r1_call_1_0"), "an invalid decision keeps the entry")
	require.False(t, e.Submit("r1", "scope:r1_call_1_0", json.RawMessage(`{"decision":"maybe"}`)))

	params := json.RawMessage(`{"decision":"narrow","scopes":["glossary"],"remember":"run"}`)
	matched, err = e.SubmitScope("r1", "scope:r1_call_1_0", params)
	require.True(t, matched)
	require.NoError(t, err)
	d, p, err := w.awaitScope(context.Background(), scopeReq, time.Second)
	require.NoError(t, err)
	require.JSONEq(t, string(params), string(p))
	require.Equal(t, protocol.ScopeDecision{Verdict: "narrow", Scopes: []string{"glossary"}, Remember: "run", By: "user"}, d)
	matched, _ = e.SubmitScope("r1", "scope:r1_call_1_0", params)
	require.False(t, matched, "answered once")

	// A duplicate key (another run state registering the same call) fails.
	other := newRunWaits(e, "r1")
	pw1 := w.openScope(scopeReq)
	pw2 := other.openScope(scopeReq)
	require.NoError(t, pw1.err)
	require.ErrorContains(t, pw2.err, "already pending")
	_, _, err = other.awaitScope(context.Background(), scopeReq, time.Second)
	require.Error(t, err)
	w.close()
	require.False(t, e.waits.pending("r1#scope:r1_call_1_0"), "close drops the pending keys")
}

// AGENT_PROTOCOL AP6: no decision in time → timeout (the key is dropped);
// a done context is an error.
func TestApprovalTimeoutAndCancel(t *testing.T) {
	e := &Engine{}
	w := newRunWaits(e, "r2")
	d, p, err := w.awaitScope(context.Background(), scopeReq, 20*time.Millisecond)
	require.NoError(t, err)
	require.Nil(t, p)
	require.Equal(t, protocol.VerdictTimeout, d.Verdict)
	require.False(t, e.waits.pending("r2#scope:r1_call_1_0"))
	matched, _ := e.SubmitScope("r2", "scope:r1_call_1_0", json.RawMessage(`{"decision":"approve"}`))
	require.False(t, matched, "too late")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = w.awaitScope(ctx, scopeReq, time.Minute)
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, e.waits.pending("r2#scope:r1_call_1_0"))
}
