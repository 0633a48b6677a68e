package server

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/store"
)

// Limits of the group commit.
const (
	// maxCommitEvents bounds the events of one AppendEventLogs call; what
	// does not fit goes into the next commit.
	maxCommitEvents = 4096
	// commitRetryMin and commitRetryMax bound the wait after a failed
	// commit (doubling from the first to the second).
	commitRetryMin = 20 * time.Millisecond
	commitRetryMax = time.Second
)

// committer makes the events of every run durable before any subscriber
// sees them (durable before sent), with group commits: each emitted event
// is queued; one goroutine stores everything queued, from all runs, in one
// store.Events.AppendEventLogs transaction, then hands the stored events
// to their runs, which publish them. While a commit is in flight new
// events queue up for the next one, so an idle server stores an event as
// soon as it is emitted (one transaction, one fsync) and a loaded one
// stores many runs' events per transaction: the cost per event falls as
// the load grows, and nothing waits for a timer. The goroutine exists only
// while there is work. It goes through the store interface only, so every
// backend gets the same rule.
type committer struct {
	st  store.Events
	log *slog.Logger

	mu      sync.Mutex
	queue   []*Run // runs with unstored events, each once
	running bool   // the commit goroutine is alive
}

// enqueue queues r, whose pending events are not stored yet. The run calls
// it when its first unstored event appears (Run.queued).
func (c *committer) enqueue(r *Run) {
	c.mu.Lock()
	c.queue = append(c.queue, r)
	start := !c.running
	c.running = true
	c.mu.Unlock()
	if start {
		go c.loop()
	}
}

// loop commits until the queue is empty, then ends; after a failed commit
// it waits (doubling, commitRetryMin to commitRetryMax) and tries again.
func (c *committer) loop() {
	wait := commitRetryMin
	for {
		c.mu.Lock()
		runs := c.queue
		c.queue = nil
		if len(runs) == 0 {
			c.running = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		if c.commit(runs) {
			wait = commitRetryMin
			continue
		}
		time.Sleep(wait)
		wait = min(2*wait, commitRetryMax)
	}
}

// taken is the part of a run's pending events one commit stores.
type taken struct {
	r      *Run
	events []store.Event
}

// commit stores the pending events of runs (up to maxCommitEvents) and
// hands them to their runs; runs with events left are queued again. It
// reports whether everything it took was stored. A failed group is stored
// run by run, so one run's broken log never holds up the others.
func (c *committer) commit(runs []*Run) bool {
	var takes []taken
	var batch []store.Event
	for _, r := range runs {
		evs := r.takePending(maxCommitEvents - len(batch))
		if len(evs) > 0 {
			takes = append(takes, taken{r: r, events: evs})
			batch = append(batch, evs...)
		}
	}
	ctx := context.Background()
	ok := true
	if err := c.st.AppendEventLogs(ctx, batch...); err == nil {
		for _, t := range takes {
			t.r.stored(len(t.events))
		}
	} else {
		c.log.Warn("run events: group commit failed; storing run by run", "events", len(batch), "err", err)
		for _, t := range takes {
			n, err := c.storeRun(ctx, t)
			switch {
			case errors.Is(err, store.ErrNotOwner):
				t.r.stored(n)
				t.r.lose()
			case err != nil:
				ok = false
				c.log.Error("run events: storing failed; retrying", "run", t.r.id, "err", err)
				t.r.stored(n)
			default:
				t.r.stored(n)
			}
		}
	}
	for _, r := range runs {
		if r.requeue() {
			c.enqueue(r)
		}
	}
	return ok
}

// storeRun stores one run's taken events alone; after a failure it reads
// the run's last stored seq, so events that did reach the store (a commit
// whose answer was lost) count as stored and are never stored twice. It
// returns how many of the events are stored. store.ErrNotOwner (another
// node took the run over) is returned as it is: nothing more of the run's
// is stored.
func (c *committer) storeRun(ctx context.Context, t taken) (int, error) {
	err := c.st.AppendEvents(ctx, t.r.id, t.events...)
	if err == nil {
		return len(t.events), nil
	}
	if errors.Is(err, store.ErrNotOwner) {
		return 0, err
	}
	last, lerr := c.st.LastSeq(ctx, t.r.id)
	if lerr != nil {
		return 0, err
	}
	n := 0
	for n < len(t.events) && t.events[n].Seq <= last {
		n++
	}
	return n, err
}
