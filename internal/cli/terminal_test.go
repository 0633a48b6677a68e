package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agent/protocol"
)

var (
	scopeQ = agent.Question{RunID: "r", ID: "scope:c1", Kind: agent.AskScope, Scope: &protocol.ScopeRequest{ToolID: "c1",
		Tool: "run_cursor_agent", Provisioned: []string{"input"}, Requested: []string{"characters", "glossary"}}}
	editsQ = agent.Question{RunID: "r", ID: "calls:c1", Kind: agent.AskApproval, Approval: &agent.Approval{ID: "calls:c1",
		Calls: []agent.ApprovalCall{
			{ToolID: "c1", ToolName: "replace_text", Preview: json.RawMessage(`{"pointer":"4:1.1.p1","op":"replace","oldMarkdown":"old","newMarkdown":"new"}`)},
			{ToolID: "c2", ToolName: "delete_item", Params: json.RawMessage(`{"pointer":"5:1.1.p2"}`)},
			{ToolID: "c3", ToolName: "insert_after", Params: json.RawMessage(`{}`)}}}}
)

// ask answers q from input at a terminal and returns the answer and what
// the terminal wrote.
func askTerminal(t *testing.T, input string, q agent.Question) (agent.Answer, string) {
	t.Helper()
	var log bytes.Buffer
	a, err := newTerminal(strings.NewReader(input), &log, true, false).Wait(context.Background(), q)
	require.NoError(t, err)
	return a, log.String()
}

// The questions of a run at the terminal, answered as the web app's user
// answers them through /submit.
func TestTerminalAnswers(t *testing.T) {
	a, shown := askTerminal(t, "y\n", scopeQ)
	require.Contains(t, shown, "? run_cursor_agent asks to see characters, glossary (it sees input anyway). Allow? [y/N]")
	require.Equal(t, &protocol.ScopeDecision{Verdict: "approve", Scopes: []string{"characters", "glossary"}, By: "user"}, a.Scope)
	a, _ = askTerminal(t, "\n", scopeQ)
	require.Equal(t, "deny", a.Scope.Verdict, "the default is no")

	a, shown = askTerminal(t, "да\n", editsQ)
	require.Contains(t, shown, "1. replace 4:1.1.p1\n     - old\n     + new")
	require.Contains(t, shown, `2. delete_item {"pointer":"5:1.1.p2"}`)
	require.Equal(t, &protocol.ConfirmDecision{Verdict: "approve", Approved: []string{"c1", "c2", "c3"}, By: "user"}, a.Approval)
	require.JSONEq(t, `{"decision":"approve","approved":["c1","c2","c3"]}`, string(a.Raw))
	a, _ = askTerminal(t, "3, 1 9\n", editsQ)
	require.Equal(t, &protocol.ConfirmDecision{Verdict: "partial", Approved: []string{"c1", "c3"}, By: "user"}, a.Approval)
	a, _ = askTerminal(t, "n\n", editsQ)
	require.Equal(t, "deny", a.Approval.Verdict)
	require.Empty(t, a.Approval.Approved)

	confirm := agent.Question{Kind: agent.AskFrontend, Call: &agent.Call{Name: "confirm",
		ToolParams: json.RawMessage(`{"question":"Publish?","details":"It goes live."}`)}}
	a, shown = askTerminal(t, "y\n", confirm)
	require.Contains(t, shown, "? Publish?\n  It goes live.")
	require.JSONEq(t, `{"confirmed":true,"comment":""}`, string(a.Raw))
	choose := agent.Question{Kind: agent.AskFrontend, Call: &agent.Call{Name: "ask_user", ToolParams: json.RawMessage(
		`{"title":"which","description":"Which professor?","answers":[{"title":"orlov","description":"Ilya"},{"title":"orlova","description":"Vera"}]}`)}}
	a, shown = askTerminal(t, "2\n", choose)
	require.Contains(t, shown, "  2. orlova — Vera")
	require.JSONEq(t, `{"answer":"orlova"}`, string(a.Raw))
	other := agent.Question{Kind: agent.AskFrontend, Call: &agent.Call{Name: "pick_date", ToolParams: json.RawMessage(`{}`)}}
	a, _ = askTerminal(t, `{"date":"2024-05-01"}`+"\n", other)
	require.JSONEq(t, `{"date":"2024-05-01"}`, string(a.Raw))
	a, _ = askTerminal(t, "tomorrow\n", other)
	require.JSONEq(t, `{"answer":"tomorrow"}`, string(a.Raw))
}

// Without a terminal nobody answers (the run takes it as a refusal);
// --yes approves scopes and edits but answers no form; the end of the
// input is no answer either.
func TestTerminalWithoutAPerson(t *testing.T) {
	var log bytes.Buffer
	_, err := newTerminal(strings.NewReader("y\n"), &log, false, false).Wait(context.Background(), editsQ)
	require.ErrorIs(t, err, agent.ErrNoAnswer)
	require.ErrorContains(t, err, "not a terminal")

	yes := newTerminal(strings.NewReader(""), &log, false, true)
	a, err := yes.Wait(context.Background(), editsQ)
	require.NoError(t, err)
	require.Equal(t, "approve", a.Approval.Verdict)
	a, err = yes.Wait(context.Background(), scopeQ)
	require.NoError(t, err)
	require.Equal(t, "approve", a.Scope.Verdict)
	_, err = yes.Wait(context.Background(), agent.Question{Kind: agent.AskFrontend, Call: &agent.Call{Name: "confirm"}})
	require.ErrorIs(t, err, agent.ErrNoAnswer)
	require.Contains(t, log.String(), "3 edit(s) approved (--yes)")

	_, err = newTerminal(strings.NewReader(""), &log, true, false).Wait(context.Background(), scopeQ)
	require.ErrorIs(t, err, agent.ErrNoAnswer, "the input ended")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = newTerminal(strings.NewReader("y\n"), &log, true, false).Wait(ctx, scopeQ)
	require.ErrorIs(t, err, context.Canceled)
}
