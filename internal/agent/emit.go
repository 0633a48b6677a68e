package agent

import (
	"context"
	"errors"
	"sync"
)

// errStopped is the cancel cause of a run whose consumer stopped reading.
var errStopped = errors.New("agent: the consumer stopped reading the run")

// emitter hands a run's events to the consumer of Run's iterator. It is
// the one way out of a run: the modes call it on the iterating goroutine;
// the protocol runtime calls it from its workers and it hands the events
// over to the iterating goroutine (funnel). After the terminal event, or
// once the consumer stopped reading (which cancels the run), nothing more
// goes out.
type emitter struct {
	mu      sync.Mutex
	send    func(Event) bool // false: the consumer stopped
	stop    func()           // cancels the run
	stopped bool
	ended   bool
}

// emit sends events in order, as one group: no other event comes between
// them.
func (e *emitter) emit(evs ...Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range evs {
		if e.stopped || e.ended {
			return
		}
		if !e.send(ev) {
			e.stopped = true
			e.stop()
			return
		}
		if ev.Type == RunComplete || ev.Type == RunError {
			e.ended = true
		}
	}
}

// over reports whether nothing more goes out: the run emitted its terminal
// event or its consumer stopped reading.
func (e *emitter) over() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopped || e.ended
}

// direct returns an emitter that yields on the calling goroutine (the
// iterating one).
func direct(yield func(Event, error) bool, stop func()) *emitter {
	return &emitter{send: func(ev Event) bool { return yield(ev, nil) }, stop: stop}
}

// handoff is one event on its way from a worker to the iterating
// goroutine; ack is closed once the consumer has it.
type handoff struct {
	ev  Event
	ack chan bool
}

// funnel runs work on its own goroutine with an emitter whose events the
// calling (iterating) goroutine yields, one at a time, each acknowledged
// before the emitting goroutine goes on (so an event is handled before the
// code after emit runs, as with a direct emitter). It returns when work
// has returned.
func funnel(ctx context.Context, yield func(Event, error) bool, stop func(), work func(ctx context.Context, em *emitter)) {
	ch := make(chan handoff)
	em := &emitter{stop: stop, send: func(ev Event) bool {
		h := handoff{ev: ev, ack: make(chan bool, 1)}
		ch <- h
		return <-h.ack
	}}
	go func() {
		defer close(ch)
		defer func() { // a late emitter (a goroutine work left behind) sends nothing
			em.mu.Lock()
			em.ended = true
			em.mu.Unlock()
		}()
		work(ctx, em)
	}()
	reading := true
	for h := range ch {
		if reading {
			reading = yield(h.ev, nil)
		}
		h.ack <- reading
	}
}
