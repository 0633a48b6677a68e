package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/store"
)

// DefaultLease is how long the runs of a node that stopped renewing its
// lease stay its own (RunOptions.Lease): another node aborts them within
// the lease plus a third of it.
const DefaultLease = 15 * time.Second

// clusterStore is a store shared by several nodes: the abilities the run
// manager needs to run on one of them.
type clusterStore interface {
	store.Leases
	store.Feed
}

// cluster is the part of a RunManager whose store several server
// processes (nodes) share. It keeps this node's lease (renewed every third
// of it; when it is lost, or cannot be renewed for a whole lease, the
// node's runs are stopped, since another node may take them over), closes
// the runs of nodes whose lease expired (claimed through the store, then
// aborted as at a restart), serves the subscriptions of runs executing on
// other nodes through mirrors, which read the store whenever the feed says
// those runs have new events, and passes cancels and submits to the node
// of their run (forward.go). On a store without these abilities a
// RunManager has no cluster and is the only node.
type cluster struct {
	st   clusterStore
	m    *RunManager
	ttl  time.Duration
	log  *slog.Logger
	stop context.CancelFunc // ends the loops
	wg   sync.WaitGroup

	kick chan struct{} // wakes the reader (one pending wake)

	joinMu sync.Mutex
	joined bool // (joinMu)

	mu      sync.Mutex
	mirrors map[string]*mirror // the runs of other nodes followed here, by run id

	waiting map[string]chan submitReply                                               // forwarded submits waiting for their answer, by id
	answer  func(runID, toolID string, params json.RawMessage) (int, json.RawMessage) // answers forwarded submits

	reapMu  sync.Mutex           // one reap at a time
	claimed map[string]store.Run // runs claimed whose abort failed, tried again (reapMu)
}

func newCluster(st clusterStore, m *RunManager, ttl time.Duration) *cluster {
	if ttl <= 0 {
		ttl = DefaultLease
	}
	return &cluster{st: st, m: m, ttl: ttl, log: m.opts.Logger, kick: make(chan struct{}, 1),
		mirrors: map[string]*mirror{}, claimed: map[string]store.Run{}, waiting: map[string]chan submitReply{}}
}

// joinListenWait bounds how long join waits for the feed to listen.
const joinListenWait = 10 * time.Second

// join takes this node's lease and starts the loops that keep it and
// listen to the feed, and waits (joinListenWait at most) until the node
// listens, so the notes of runs started from then on reach it; once
// joined it does nothing.
func (c *cluster) join(ctx context.Context) error {
	c.joinMu.Lock()
	defer c.joinMu.Unlock()
	if c.joined {
		return nil
	}
	if _, err := c.st.RenewLease(ctx, c.ttl); err != nil {
		return fmt.Errorf("server: taking this node's lease: %w", err)
	}
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.mu.Lock()
	c.stop = stop
	c.mu.Unlock()
	c.joined = true
	listening := make(chan struct{})
	var once sync.Once
	c.wg.Go(func() { c.keep(loopCtx) })
	c.wg.Go(func() { c.read(loopCtx) })
	c.wg.Go(func() {
		err := c.st.Listen(loopCtx, func(n store.Note) {
			if n.RunID == "" {
				once.Do(func() { close(listening) })
			}
			c.note(n)
		})
		if err != nil && loopCtx.Err() == nil {
			c.log.Error("cluster: listening to the run feed failed", "err", err)
		}
	})
	t := time.NewTimer(joinListenWait)
	defer t.Stop()
	select {
	case <-listening:
	case <-t.C:
		c.log.Warn("cluster: not listening to the run feed yet; going on", "after", joinListenWait)
	case <-ctx.Done():
	}
	return nil
}

// close stops the loops and waits for them.
func (c *cluster) close() {
	c.mu.Lock()
	stop := c.stop
	c.stop = nil
	c.mu.Unlock()
	if stop != nil {
		stop()
		c.wg.Wait()
	}
}

// keep renews the lease and closes the runs of dead nodes every third of
// the lease, and makes the mirrors read again on the way (a note that never
// came is then read anyway).
func (c *cluster) keep(ctx context.Context) {
	every := c.ttl / 3
	lastRenewal := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		lost, err := c.st.RenewLease(ctx, c.ttl)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && time.Since(lastRenewal) >= c.ttl:
			c.log.Error("cluster: the lease could not be renewed for a whole lease; stopping this node's runs", "err", err)
			c.m.stopAll(leaseLostInfo)
		case err != nil:
			c.log.Warn("cluster: renewing the lease failed; retrying", "err", err)
		case lost:
			c.log.Error("cluster: this node's lease had expired; stopping its runs (another node may have taken them over)")
			c.m.stopAll(leaseLostInfo)
			lastRenewal = time.Now()
		default:
			lastRenewal = time.Now()
		}
		if err == nil {
			if err := c.reap(ctx); err != nil && ctx.Err() == nil {
				c.log.Warn("cluster: closing the runs of stopped nodes failed", "err", err)
			}
		}
		c.wantAll(true)
	}
}

// reap claims the runs of nodes whose lease expired and aborts each as at
// a restart (RunManager.abort); the subscribers on every node then get the
// run.error. A run whose abort failed stays this node's and is tried again
// at the next reap (it is no longer claimable: this node owns it).
func (c *cluster) reap(ctx context.Context) error {
	c.reapMu.Lock()
	defer c.reapMu.Unlock()
	runs, err := c.st.ClaimExpiredRuns(ctx)
	if err != nil {
		return err
	}
	for _, run := range runs {
		c.log.Warn("cluster: aborting a run of a stopped node", "run", run.ID, "chat", run.ChatID)
		c.claimed[run.ID] = run
	}
	var errs []error
	for id, run := range c.claimed {
		err := c.m.abort(ctx, run)
		switch {
		case err == nil:
			delete(c.claimed, id)
			c.announceEnd(ctx, id)
		case errors.Is(err, store.ErrNotOwner): // claimed by another node meanwhile (this node's lease lapsed)
			delete(c.claimed, id)
			errs = append(errs, fmt.Errorf("run %q: %w", id, err))
		default:
			errs = append(errs, fmt.Errorf("run %q: %w (tried again at the next reap)", id, err))
		}
	}
	return errors.Join(errs...)
}

// announceEnd tells every node that run runID has ended and its end is
// recorded: their subscribers may send its terminal event.
func (c *cluster) announceEnd(ctx context.Context, runID string) {
	if err := c.st.Announce(context.WithoutCancel(ctx), store.Note{RunID: runID, Ended: true}); err != nil {
		c.log.Warn("cluster: announcing the end of a run failed", "run", runID, "err", err)
	}
}

// note handles a note of the feed: the mirror of its run (every mirror for
// the zero note) reads again; a cancel note stops the run if it runs here;
// a message is handled by message.
func (c *cluster) note(n store.Note) {
	if len(n.Body) > 0 {
		c.message(n)
		return
	}
	if n.Cancel {
		if err := c.m.cancelLocal(n.RunID); err == nil {
			c.log.Info("cluster: run canceled from another node", "run", n.RunID)
		}
		return
	}
	if n.RunID == "" { // notes may have been missed, Ended ones too
		c.wantAll(true)
		return
	}
	c.mu.Lock()
	mr := c.mirrors[n.RunID]
	c.mu.Unlock()
	if mr != nil {
		mr.mu.Lock()
		mr.want = true
		mr.ended = mr.ended || n.Ended
		mr.mu.Unlock()
		c.wake()
	}
}

// wantAll makes every mirror read again; check also asks the store whether
// a run whose terminal event is held has ended.
func (c *cluster) wantAll(check bool) {
	c.mu.Lock()
	for _, mr := range c.mirrors {
		mr.mu.Lock()
		mr.want = true
		mr.check = mr.check || (check && mr.held)
		mr.mu.Unlock()
	}
	c.mu.Unlock()
	c.wake()
}

// wake wakes the reader.
func (c *cluster) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// follow makes s follow its run through the run's mirror, made for it if
// it is the first: the mirror starts at s's cursor.
func (c *cluster) follow(s *Subscription) {
	c.mu.Lock()
	mr := c.mirrors[s.runID]
	if mr == nil {
		mr = &mirror{runID: s.runID, read: s.next, visible: s.next, want: true, subs: map[*Subscription]struct{}{}}
		c.mirrors[s.runID] = mr
	}
	c.mu.Unlock()
	mr.mu.Lock()
	mr.subs[s] = struct{}{}
	mr.mu.Unlock()
	s.mirror = mr
	c.wake()
}

// unfollow forgets a subscription of follow, and the mirror after its last.
func (c *cluster) unfollow(s *Subscription) {
	mr := s.mirror
	c.mu.Lock()
	defer c.mu.Unlock()
	mr.mu.Lock()
	delete(mr.subs, s)
	empty := len(mr.subs) == 0
	mr.mu.Unlock()
	if empty && c.mirrors[s.runID] == mr {
		delete(c.mirrors, s.runID)
	}
}

// read is the reader: whenever woken it reads the new events of every
// mirror that wants them in one query (ListEventsAfter) and hands them to
// the mirrors, which wake their subscriptions. Notes arriving meanwhile
// are read by the next query, so the reads keep up however many runs are
// followed. After a failed read it waits a little and reads again.
func (c *cluster) read(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		if err := c.readOnce(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("cluster: reading the events of runs of other nodes failed; retrying", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			c.wantAll(false)
		}
	}
}

// readOnce reads for the mirrors that want it.
func (c *cluster) readOnce(ctx context.Context) error {
	after := map[string]int64{}
	var wanting, checking []*mirror
	c.mu.Lock()
	for id, mr := range c.mirrors {
		mr.mu.Lock()
		if mr.want {
			mr.want = false
			after[id] = mr.read
			wanting = append(wanting, mr)
		}
		if mr.check {
			mr.check = false
			checking = append(checking, mr)
		}
		mr.mu.Unlock()
	}
	c.mu.Unlock()
	if len(after) > 0 {
		events, err := c.st.ListEventsAfter(ctx, after)
		if err != nil {
			return err
		}
		byRun := map[string][]store.Event{}
		for _, e := range events {
			byRun[e.RunID] = append(byRun[e.RunID], e)
		}
		for _, mr := range wanting {
			if mr.add(byRun[mr.runID]) {
				checking = append(checking, mr)
			}
		}
	}
	for _, mr := range checking { // the end may be recorded without a note (one lost, or before the mirror)
		done, err := c.endRecorded(ctx, mr.runID)
		if err != nil {
			return err
		}
		if done {
			mr.mu.Lock()
			mr.ended = true
			mr.release()
			mr.mu.Unlock()
		}
	}
	return nil
}

// endRecorded reports whether the end of run runID is recorded as its
// node records it before announcing it: the run finished in the store and
// its chat updated (the chat's last run is this run or a later one).
func (c *cluster) endRecorded(ctx context.Context, runID string) (bool, error) {
	run, err := c.m.st.GetRun(ctx, runID)
	if err != nil || run.Status == store.RunRunning {
		return false, err
	}
	chat, err := c.m.st.GetChat(ctx, run.ChatID)
	if err != nil {
		return false, err
	}
	return chat.LastRunID >= run.ID, nil
}

// mirror is this node's copy of the recent events of a run executing on
// another node, read from the store for the subscriptions that follow the
// run here: like a Run's tail, with the terminal event held back until the
// run's end is recorded (the Ended note, or the store says so).
type mirror struct {
	runID string

	mu       sync.Mutex
	subs     map[*Subscription]struct{}
	read     int64      // the last seq read from the store
	tail     []logEntry // the latest events read, at most 2×tailSize (trimTail)
	visible  int64      // the last seq subscribers get
	finished bool       // the terminal event is visible
	held     bool       // the terminal event is read, not visible yet
	ended    bool       // the run's end is recorded
	want     bool       // a note announced events after read
	check    bool       // ask the store whether a held run has ended
}

// add takes the events read after mr.read and wakes the subscriptions. It
// reports a terminal event read now whose run's end is not known to be
// recorded: the caller asks the store (its Ended note may have come before
// the mirror existed).
func (mr *mirror) add(events []store.Event) (check bool) {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	for _, e := range events {
		if e.Seq <= mr.read || mr.held {
			continue // read twice (a wake during a read), or after the terminal event
		}
		mr.read = e.Seq
		mr.tail = append(mr.tail, logEntry{ev: StoredEvent(e), body: e.Body})
		if Terminal(e.Type) {
			mr.held, check = true, !mr.ended
		} else {
			mr.visible = e.Seq
		}
	}
	mr.tail = trimTail(mr.tail)
	mr.release()
	mr.signalLocked()
	return check
}

// release makes a held terminal event visible once the run's end is
// recorded. Call with mr.mu held.
func (mr *mirror) release() {
	if mr.held && mr.ended && !mr.finished {
		mr.visible, mr.finished = mr.read, true
		mr.signalLocked()
	}
}

func (mr *mirror) signalLocked() {
	for s := range mr.subs {
		s.signal()
	}
}

// leaseLostInfo is the run.error of the runs a node stops when it lost its
// lease (it may also be the run.error another node stored first).
var leaseLostInfo = api.ErrorInfo{Code: api.CodeRunAborted, Retriable: true, Reason: api.AbortShutdown,
	Message: "the server lost its lease on the run (it could not reach the database in time)"}
