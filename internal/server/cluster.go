package server

import (
	"context"
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
// aborted as at a restart), and serves the subscriptions of runs executing
// on other nodes: they read the store whenever the feed says the run has
// new events. On a store without these abilities a RunManager has no
// cluster and is the only node.
type cluster struct {
	st   clusterStore
	m    *RunManager
	ttl  time.Duration
	log  *slog.Logger
	stop context.CancelFunc // ends the loops
	wg   sync.WaitGroup

	mu     sync.Mutex
	joined bool
	remote map[string]map[*Subscription]struct{} // subscriptions of other nodes' runs, by run id
}

func newCluster(st clusterStore, m *RunManager, ttl time.Duration) *cluster {
	if ttl <= 0 {
		ttl = DefaultLease
	}
	return &cluster{st: st, m: m, ttl: ttl, log: m.opts.Logger, remote: map[string]map[*Subscription]struct{}{}}
}

// join takes this node's lease and starts the loops that keep it and
// listen to the feed; once joined it does nothing.
func (c *cluster) join(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.joined {
		return nil
	}
	if _, err := c.st.RenewLease(ctx, c.ttl); err != nil {
		return fmt.Errorf("server: taking this node's lease: %w", err)
	}
	loopCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop, c.joined = stop, true
	c.wg.Go(func() { c.keep(loopCtx) })
	c.wg.Go(func() {
		if err := c.st.Listen(loopCtx, c.note); err != nil && loopCtx.Err() == nil {
			c.log.Error("cluster: listening to the run feed failed", "err", err)
		}
	})
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
// the lease, and wakes the remote subscriptions on the way (a note that
// never came is then read anyway).
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
		c.wakeAll()
	}
}

// reap claims the runs of nodes whose lease expired and aborts each as at
// a restart (RunManager.abort); the subscribers on every node then get the
// run.error.
func (c *cluster) reap(ctx context.Context) error {
	runs, err := c.st.ClaimExpiredRuns(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, run := range runs {
		c.log.Warn("cluster: aborting a run of a stopped node", "run", run.ID, "chat", run.ChatID)
		if err := c.m.abort(ctx, run); err != nil {
			errs = append(errs, fmt.Errorf("run %q: %w", run.ID, err))
			continue
		}
		c.announceEnd(ctx, run.ID)
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

// note handles a note of the feed: the subscriptions of its run (all of
// them for the zero note) read again; a cancel note stops the run if it
// runs here.
func (c *cluster) note(n store.Note) {
	if n.Cancel {
		if err := c.m.cancelLocal(n.RunID); err == nil {
			c.log.Info("cluster: run canceled from another node", "run", n.RunID)
		}
		return
	}
	if n.RunID == "" {
		c.wakeAll()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.remote[n.RunID] {
		s.signal()
	}
}

// wakeAll wakes every remote subscription.
func (c *cluster) wakeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, subs := range c.remote {
		for s := range subs {
			s.signal()
		}
	}
}

// follow registers a subscription of a run of another node.
func (c *cluster) follow(s *Subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	subs := c.remote[s.runID]
	if subs == nil {
		subs = map[*Subscription]struct{}{}
		c.remote[s.runID] = subs
	}
	subs[s] = struct{}{}
}

// unfollow forgets a subscription of follow.
func (c *cluster) unfollow(s *Subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if subs := c.remote[s.runID]; subs != nil {
		delete(subs, s)
		if len(subs) == 0 {
			delete(c.remote, s.runID)
		}
	}
}

// leaseLostInfo is the run.error of the runs a node stops when it lost its
// lease (it may also be the run.error another node stored first).
var leaseLostInfo = api.ErrorInfo{Code: api.CodeRunAborted, Retriable: true, Reason: api.AbortShutdown,
	Message: "the server lost its lease on the run (it could not reach the database in time)"}
