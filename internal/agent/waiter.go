package agent

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/aitexteditor/aite/internal/agent/protocol"
)

// Waiter waits for a person: the answer to a frontend call, the decision on
// a scope request, the decision on held edit calls. It is the one way a run
// asks somebody; the runtime applies the timeouts (through ctx) and emits
// the question before it waits.
type Waiter interface {
	// Wait blocks until q is answered, or ctx is done (then ctx's error).
	// An error wrapping ErrNoAnswer means nobody can answer (no terminal):
	// the run takes it as a timeout at once.
	Wait(ctx context.Context, q Question) (Answer, error)
}

// ErrNoAnswer is wrapped by a Waiter's error when nobody can answer.
var ErrNoAnswer = errors.New("nobody can answer")

// QuestionKind says what a question asks.
type QuestionKind string

// The kinds of questions.
const (
	AskFrontend QuestionKind = "frontend" // a frontend tool's call: any JSON answer
	AskScope    QuestionKind = "scope"    // scopes for a call: a ScopeDecision
	AskApproval QuestionKind = "approval" // held edit calls: a ConfirmDecision
)

// Question is what a run asks a person. ID is the id a person answers
// under: the call id of a frontend call, "scope:<call id>" for a scope
// request, the approval id for held calls.
type Question struct {
	RunID string
	ID    string
	Kind  QuestionKind
	// Call is the frontend call (its arguments in Call.ToolParams when
	// known at its start).
	Call *Call
	// Scope is the scope request.
	Scope *protocol.ScopeRequest
	// Approval is the edit approval request.
	Approval *Approval
}

// Answer is a person's answer: Raw as it was given (the request.submit
// payload), and the decision it makes for a scope or an approval question.
type Answer struct {
	Raw      json.RawMessage
	Scope    *protocol.ScopeDecision
	Approval *protocol.ConfirmDecision
}

// QuestionOf returns the question an event shows to a person (a frontend
// call's start, a scope request, an approval request), if any.
func QuestionOf(runID string, ev Event) (Question, bool) {
	switch {
	case ev.Type == ToolStart && ev.Call != nil && ev.Call.Kind == CallFrontend:
		return Question{RunID: runID, ID: ev.Call.ID, Kind: AskFrontend, Call: ev.Call}, true
	case ev.Type == ScopeRequest && ev.Scope != nil:
		return Question{RunID: runID, ID: ScopeApprovalPrefix + ev.Scope.ToolID, Kind: AskScope, Scope: ev.Scope}, true
	case ev.Type == ApprovalRequest && ev.Approval != nil:
		return Question{RunID: runID, ID: ev.Approval.ID, Kind: AskApproval, Approval: ev.Approval}, true
	}
	return Question{}, false
}

// Waits is a Waiter whose answers come from elsewhere (the server's
// /submit): it keeps the pending questions of all runs, keyed by run id and
// question id. A question is registered once, by whichever comes first:
// Open (called with every event before it reaches a client, so a client
// answering at once is matched) or Wait. Answer hands over a typed answer;
// the caller (the server) parses what a person submitted against
// Pending's question. Waits is safe for concurrent use; its zero value is
// ready.
type Waits struct {
	mu sync.Mutex
	m  map[string]*pending
}

// pending is one registered question. An answer given before anyone
// waits is kept in ch until Wait takes it.
type pending struct {
	q        Question
	ch       chan Answer // buffered: Answer never blocks
	answered bool
}

func waitKey(runID, id string) string { return runID + "#" + id }

// Open registers the question ev shows, if any (see QuestionOf).
func (w *Waits) Open(runID string, ev Event) {
	if q, ok := QuestionOf(runID, ev); ok {
		w.open(q)
	}
}

// open registers q unless it is registered already and returns its entry.
func (w *Waits) open(q Question) *pending {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := waitKey(q.RunID, q.ID)
	if p := w.m[key]; p != nil {
		return p
	}
	if w.m == nil {
		w.m = map[string]*pending{}
	}
	p := &pending{q: q, ch: make(chan Answer, 1)}
	w.m[key] = p
	return p
}

// Wait implements Waiter: it registers q (unless Open did) and waits for
// its answer. When ctx ends first the question is dropped, but an answer
// that came in the meantime still counts.
func (w *Waits) Wait(ctx context.Context, q Question) (Answer, error) {
	p := w.open(q)
	defer w.drop(waitKey(q.RunID, q.ID), p)
	select {
	case a := <-p.ch:
		return a, nil
	case <-ctx.Done():
		w.drop(waitKey(q.RunID, q.ID), p)
		select {
		case a := <-p.ch:
			return a, nil
		default:
			return Answer{}, ctx.Err()
		}
	}
}

// Pending returns the question runID#id while it waits for its answer.
func (w *Waits) Pending(runID, id string) (Question, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.m[waitKey(runID, id)]
	if p == nil || p.answered {
		return Question{}, false
	}
	return p.q, true
}

// Answer answers the question runID#id; false when no such question is
// pending (unknown, answered, timed out, its run ended).
func (w *Waits) Answer(runID, id string, a Answer) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.m[waitKey(runID, id)]
	if p == nil || p.answered {
		return false
	}
	p.answered = true
	a.Raw = append(json.RawMessage(nil), a.Raw...)
	p.ch <- a
	return true
}

// drop removes the entry p of key (when it is still the one registered).
func (w *Waits) drop(key string, p *pending) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[key] == p {
		delete(w.m, key)
	}
}

// Close drops the questions of a run that ended: nobody waits for them.
func (w *Waits) Close(runID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	prefix := runID + "#"
	for key := range w.m {
		if len(key) > len(prefix) && key[:len(prefix)] == prefix {
			delete(w.m, key)
		}
	}
}

var _ Waiter = (*Waits)(nil)
