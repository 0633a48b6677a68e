package llmtest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/aitexteditor/aite/internal/llm"
)

// ErrNoReply is the error of a Scripted provider asked for more turns than
// it was given.
var ErrNoReply = errors.New("llmtest: no scripted reply")

// Scripted is a fake llm.Provider that answers with prepared replies in
// order (or from a function), records a deep copy of every request, and
// checks the context between events. It is safe for concurrent use.
type Scripted struct {
	mu      sync.Mutex
	replies []Reply
	fn      func(req *llm.Request) Reply
	reqs    []*llm.Request
}

var _ llm.Provider = (*Scripted)(nil)

// NewScripted returns a provider answering with replies in order; once they
// are used up, every stream fails with ErrNoReply.
func NewScripted(replies ...Reply) *Scripted { return &Scripted{replies: replies} }

// ScriptedFunc returns a provider that answers every request with fn(req)
// (an oracle). fn gets a private copy of the request and may be called
// concurrently.
func ScriptedFunc(fn func(req *llm.Request) Reply) *Scripted { return &Scripted{fn: fn} }

// Add appends replies to the script.
func (s *Scripted) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns deep copies of the requests received so far, in order.
func (s *Scripted) Requests() []*llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*llm.Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = r.Clone()
	}
	return out
}

// Remaining returns the number of unused scripted replies.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

// Stream records req at once and plays the next reply when iterated.
func (s *Scripted) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	reply := s.next(req)
	return func(yield func(llm.Event, error) bool) { Play(ctx, reply, yield) }
}

// next records req and picks its reply.
func (s *Scripted) next(req *llm.Request) Reply {
	c := req.Clone()
	s.mu.Lock()
	s.reqs = append(s.reqs, c)
	n := len(s.reqs)
	fn := s.fn
	var reply Reply
	ok := len(s.replies) > 0
	if ok {
		reply, s.replies = s.replies[0], s.replies[1:]
	}
	s.mu.Unlock()
	switch {
	case fn != nil:
		return fn(c.Clone())
	case ok:
		return reply
	}
	last := ""
	if c != nil {
		last = c.LastUserMessage()
	}
	return Fail(fmt.Errorf("%w for request #%d (last user message %q)", ErrNoReply, n, last))
}

// Play yields reply's events, then its error, then (Hang) waits for ctx; it
// stops with the context's error as soon as ctx is done.
func Play(ctx context.Context, reply Reply, yield func(llm.Event, error) bool) {
	for _, ev := range reply.Events {
		if ce := llm.ContextError(ctx); ce != nil {
			yield(llm.Event{}, ce)
			return
		}
		if !yield(copyEvent(ev), nil) {
			return
		}
	}
	if reply.Err != nil {
		yield(llm.Event{}, reply.Err)
		return
	}
	if reply.Hang {
		<-ctx.Done()
		yield(llm.Event{}, llm.ContextError(ctx))
	}
}

// copyEvent keeps the script's pointers away from the consumer.
func copyEvent(ev llm.Event) llm.Event {
	if ev.Call != nil {
		c := *ev.Call
		ev.Call = &c
	}
	if ev.Usage != nil {
		u := *ev.Usage
		ev.Usage = &u
	}
	return ev
}
