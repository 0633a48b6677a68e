package server

import (
	"encoding/json"
	"testing"

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

func TestParseCallDecision(t *testing.T) {
	req := []string{"a", "b"}
	for params, want := range map[string]string{
		`[]`:                                    "params must be a JSON object",
		`{}`:                                    "decision is required",
		`{"decision":"narrow"}`:                 "decision must be approve, deny or partial",
		`{"decision":5}`:                        "decision must be a string",
		`{"decision":"approve","x":1}`:          `unknown field "x"`,
		`{"decision":"partial"}`:                "partial needs approved",
		`{"decision":"partial","approved":"a"}`: "approved must be an array",
		`{"decision":"partial","approved":["c"]}`: `tool id "c" is not part of the request (calls: a, b)`,
		`{"decision":"approve","reason":1}`:       "reason must be a string",
	} {
		_, err := parseCallDecision(json.RawMessage(params), req)
		require.ErrorContains(t, err, want, params)
	}
	d, err := parseCallDecision(json.RawMessage(`{"decision":"partial","approved":["b","a","b"],"reason":"r"}`), req)
	require.NoError(t, err)
	require.Equal(t, protocol.ConfirmDecision{Verdict: "partial", Approved: []string{"a", "b"}, Reason: "r", By: "user"}, d)
	d, err = parseCallDecision(json.RawMessage(`{"decision":"approve","approved":null}`), req)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, d.Approved)
	d, err = parseCallDecision(json.RawMessage(`{"decision":"partial","approved":[]}`), req)
	require.NoError(t, err)
	require.Empty(t, d.Approved)
}

// The answer of the standard confirm form (the approval offered as the
// confirm frontend tool) decides an edit approval too.
func TestParseConfirmForm(t *testing.T) {
	req := []string{"a", "b"}
	for params, want := range map[string]protocol.ConfirmDecision{
		`{"confirmed":true}`:                                   {Verdict: "approve", Approved: []string{"a", "b"}, By: "user"},
		`{"confirmed":true,"comment":""}`:                      {Verdict: "approve", Approved: []string{"a", "b"}, By: "user"},
		`{"confirmed":false,"comment":"too loose"}`:            {Verdict: "deny", Reason: "too loose", By: "user"},
		`{"confirmed":true,"approved":["b"]}`:                  {Verdict: "partial", Approved: []string{"b"}, By: "user"},
		`{"confirmed":true,"approved":["b","a"],"comment":""}`: {Verdict: "approve", Approved: []string{"a", "b"}, By: "user"},
	} {
		d, err := parseCallDecision(json.RawMessage(params), req)
		require.NoError(t, err, params)
		require.Equal(t, want, d, params)
	}
	for params, want := range map[string]string{
		`{"confirmed":"yes"}`:                  "confirmed must be true or false",
		`{"confirmed":true,"approved":["c"]}`:  `tool id "c" is not part of the request`,
		`{"confirmed":true,"comment":7}`:       "comment must be a string",
		`{"confirmed":true,"decision":"deny"}`: `unknown field "confirmed"`,
		`{"confirmed":true,"approved":"a"}`:    "approved must be an array",
	} {
		_, err := parseCallDecision(json.RawMessage(params), req)
		require.ErrorContains(t, err, want, params)
	}
}
