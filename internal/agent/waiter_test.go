package agent

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/protocol"
)

// The question an event shows: a frontend call's start, a scope request,
// an approval request; nothing else.
func TestQuestionOf(t *testing.T) {
	front := Event{Type: ToolStart, Call: &Call{ID: "c1", Name: "pick", Kind: CallFrontend}}
	q, ok := QuestionOf("r", front)
	require.True(t, ok)
	require.Equal(t, Question{RunID: "r", ID: "c1", Kind: AskFrontend, Call: front.Call}, q)
	q, ok = QuestionOf("r", Event{Type: ScopeRequest, Scope: &protocol.ScopeRequest{ToolID: "c2"}})
	require.True(t, ok)
	require.Equal(t, "scope:c2", q.ID)
	q, ok = QuestionOf("r", Event{Type: ApprovalRequest, Approval: &Approval{ID: "calls:c3"}})
	require.True(t, ok)
	require.Equal(t, AskApproval, q.Kind)
	_, ok = QuestionOf("r", Event{Type: ToolStart, Call: &Call{ID: "c4", Kind: CallBackend}})
	require.False(t, ok)
}

// An answer given as soon as the question is shown (before the run waits)
// is kept; a question is answered once; Close drops what a run left.
func TestWaitsAnswerBeforeWait(t *testing.T) {
	var w Waits
	w.Open("r", Event{Type: ToolStart, Call: &Call{ID: "c1", Kind: CallFrontend}})
	q, ok := w.Pending("r", "c1")
	require.True(t, ok)
	require.Equal(t, AskFrontend, q.Kind)
	require.True(t, w.Answer("r", "c1", Answer{Raw: json.RawMessage(`{"ok":true}`)}))
	require.False(t, w.Answer("r", "c1", Answer{Raw: json.RawMessage(`{}`)}), "answered once")
	_, ok = w.Pending("r", "c1")
	require.False(t, ok)
	a, err := w.Wait(context.Background(), q)
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true}`, string(a.Raw))
	require.False(t, w.Answer("r", "c1", Answer{}), "gone after the wait")

	w.Open("r", Event{Type: ScopeRequest, Scope: &protocol.ScopeRequest{ToolID: "c2"}})
	w.Close("r")
	_, ok = w.Pending("r", "scope:c2")
	require.False(t, ok, "Close drops the run's questions")
}

// A wait that ends with its context drops the question (a later answer is
// unmatched) and returns the context's error.
func TestWaitsTimeout(t *testing.T) {
	var w Waits
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := w.Wait(ctx, Question{RunID: "r", ID: "c1", Kind: AskFrontend})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, w.Answer("r", "c1", Answer{}), "too late")
}

// The engine's ask: a timeout is context.DeadlineExceeded, the run's end
// its own error, and without a waiter nobody can answer.
func TestEngineAsk(t *testing.T) {
	_, err := (&Runner{}).ask(context.Background(), time.Second, Question{})
	require.ErrorIs(t, err, ErrNoAnswer)
	e := &Runner{Waiter: &Waits{}}
	_, err = e.ask(context.Background(), time.Millisecond, Question{RunID: "r", ID: "x"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.ask(ctx, time.Minute, Question{RunID: "r", ID: "y"})
	require.ErrorIs(t, err, context.Canceled)
}
