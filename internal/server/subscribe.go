package server

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// Subscription follows one run from a seq on (§ 3.6): Next hands out the
// run's events after the last one it gave, exactly as first sent, without
// gaps or duplicates, up to the terminal event. It only ever gives events
// that are durable, so a client never sees an event the store could lose,
// and a seq it saw is never reused. It pulls: nothing is buffered per
// subscriber and the run never waits for one, so a slow client is not
// dropped; it reads on from the run's recent events in memory or, when it
// has fallen further behind, from the store, and then follows live.
// Whoever serves it decides when a client that makes no progress is given
// up (the SSE writer's stall timeout); the client may then reattach with
// the last seq it got. A Subscription is used by one goroutine.
//
// In a cluster a run executing on another node is followed through its
// mirror (cluster.go): the events the feed announces are read from the
// store, so they are durable, for all the mirrors of the node at once, and
// the terminal event is given once the run's end is recorded. A
// subscription of a run this node loses to another node goes on the same
// way.
type Subscription struct {
	m      *RunManager
	runID  string
	run    *Run    // nil: the run is not running here (read from the store)
	mirror *mirror // a run of another node (remote)
	remote bool
	next   int64
	ready  chan struct{}
	done   bool
}

// Subscribe follows run runID from seq afterSeq (Last-Event-ID; 0 for the
// whole log). A run that is not running here is read from the store (a run
// still marked running there, i.e. not yet recovered, ends without a
// terminal event). A Last-Event-ID beyond what a running run has reached
// skips its events up to that seq. Unknown runs give ErrRunNotFound. Every
// subscription of a running run counts as a client attached to it
// (Clients) until Close.
func (m *RunManager) Subscribe(ctx context.Context, runID string, afterSeq int64) (*Subscription, error) {
	s := &Subscription{m: m, runID: runID, next: afterSeq, ready: make(chan struct{}, 1)}
	m.mu.Lock()
	r := m.runs[runID]
	if r != nil {
		r.mu.Lock()
		r.subs[s] = struct{}{}
		r.mu.Unlock()
	}
	m.mu.Unlock()
	s.run = r
	s.signal()
	if r != nil {
		return s, nil
	}
	run, err := m.st.GetRun(ctx, runID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("%w: %q", ErrRunNotFound, runID)
		}
		return nil, fmt.Errorf("server: replay run %q: %w", runID, err)
	}
	if m.cl != nil && run.Status == store.RunRunning {
		s.remote = true
		m.cl.follow(s)
	}
	return s, nil
}

// Ready receives a value when Next may have new events.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// signal wakes the subscriber without blocking.
func (s *Subscription) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Next returns the events after the last one it returned that are visible
// now, in seq order; done is true once the terminal event was returned (or,
// for a run that is not running, once the store had nothing more). No
// events and not done: wait for Ready.
func (s *Subscription) Next(ctx context.Context) (events []api.Event, done bool, err error) {
	if s.done {
		return nil, true, nil
	}
	if s.remote {
		mr := s.mirror
		mr.mu.Lock()
		v := viewOf(mr.tail, s.next, mr.visible, mr.finished)
		mr.mu.Unlock()
		return s.take(ctx, v)
	}
	if s.run == nil {
		events, err = s.fromStore(ctx, -1)
		s.done = err == nil
		return events, s.done, err
	}
	r := s.run
	r.mu.Lock()
	if r.lost {
		delete(r.subs, s)
		r.mu.Unlock()
		s.run, s.remote = nil, true
		s.m.cl.follow(s)
		return s.Next(ctx)
	}
	v := viewOf(r.tail, s.next, r.visible, r.finished)
	r.mu.Unlock()
	return s.take(ctx, v)
}

// logView is what a subscription may take of a run's recent events at one
// moment.
type logView struct {
	events   []api.Event // after the cursor, up to visible
	visible  int64       // the last seq subscribers get
	finished bool        // the terminal event is visible
	behind   bool        // the cursor is before the events kept: read the store
}

// viewOf returns the view of tail (the latest events, in seq order) for a
// cursor at next.
func viewOf(tail []logEntry, next, visible int64, finished bool) logView {
	v := logView{visible: visible, finished: finished}
	if next >= visible {
		return v
	}
	if len(tail) == 0 || tail[0].ev.Seq > next+1 {
		v.behind = true
		return v
	}
	from := sort.Search(len(tail), func(i int) bool { return tail[i].ev.Seq > next }) // tail is in seq order
	for _, e := range tail[from:] {
		if e.ev.Seq > visible {
			break
		}
		v.events = append(v.events, e.ev)
	}
	return v
}

// take hands out the events of v (from the store when behind) and moves
// the cursor.
func (s *Subscription) take(ctx context.Context, v logView) (events []api.Event, done bool, err error) {
	if s.next >= v.visible {
		s.done = v.finished
		return nil, s.done, nil
	}
	events = v.events
	if v.behind { // fallen behind the events kept in memory
		if events, err = s.fromStore(ctx, v.visible); err != nil {
			return nil, false, err
		}
	}
	if n := len(events); n > 0 {
		s.next = events[n-1].Seq
		s.done = Terminal(events[n-1].Type)
	}
	return events, s.done, nil
}

// fromStore reads the stored events after the cursor, up to seq upTo (-1:
// all), and moves the cursor.
func (s *Subscription) fromStore(ctx context.Context, upTo int64) ([]api.Event, error) {
	stored, err := s.m.st.ListEvents(ctx, s.runID, s.next)
	if err != nil {
		return nil, fmt.Errorf("server: read run %q: %w", s.runID, err)
	}
	out := make([]api.Event, 0, len(stored))
	for _, e := range stored {
		if upTo >= 0 && e.Seq > upTo {
			break
		}
		out = append(out, StoredEvent(e))
	}
	if s.run == nil && len(out) > 0 {
		s.next = out[len(out)-1].Seq
	}
	return out, nil
}

// Close ends the subscription (it no longer counts as a client). Calling it
// again does nothing.
func (s *Subscription) Close() {
	if r := s.run; r != nil {
		r.mu.Lock()
		delete(r.subs, s)
		r.mu.Unlock()
	}
	if s.remote {
		s.m.cl.unfollow(s)
	}
}
