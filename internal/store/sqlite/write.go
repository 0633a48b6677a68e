package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// groupCommit runs the write transactions of concurrent callers together:
// the callers that arrive while a transaction is being written and synced
// form the next group, which one of them (the leader; no extra goroutine)
// writes as one transaction, each caller's work inside its own SAVEPOINT, so
// a failing one is rolled back alone and the others commit. A group costs
// one commit (one fsync with synchronous=FULL) however many callers it
// holds, so under load (many runs storing events, messages and chats at
// once) the fsyncs do not queue up behind each other. Every caller still
// gets its own result and sees the same outcome as with a transaction of
// its own: its writes are committed when write returns nil. When the
// group's transaction cannot be finished (COMMIT fails, or a failure
// aborted it), its members are written again one by one. A leader writes
// one group, then hands the lead to the first caller waiting, so no caller
// is kept writing for others.
type groupCommit struct {
	mu      sync.Mutex
	queue   []*writeReq
	leading bool // a caller leads: the queue will be written
}

// writeReq is one caller's write transaction.
type writeReq struct {
	ctx  context.Context
	fn   func(*sql.Tx) error
	err  error
	lead bool          // the caller writes the next group (set before wake)
	wake chan struct{} // closed when the result is set or the caller leads
}

// write runs fn in a write transaction on the writer connection, grouped
// with the concurrent callers' (groupCommit); it returns once fn's writes
// are committed, or fn's or the commit's error.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := &writeReq{ctx: ctx, fn: fn, wake: make(chan struct{})}
	g := &s.gc
	g.mu.Lock()
	g.queue = append(g.queue, req)
	first := !g.leading
	if first {
		g.leading, req.lead = true, true
	}
	g.mu.Unlock()
	if !first {
		<-req.wake // req.lead is set before wake closes
	}
	if req.lead {
		s.lead()
	}
	return req.err
}

// lead writes the queued group (the leader's own request is in it), wakes
// its members with their results and hands the lead on.
func (s *Store) lead() {
	g := &s.gc
	g.mu.Lock()
	group := g.queue
	g.queue = nil
	g.mu.Unlock()
	if len(group) == 1 || !s.writeGroup(group) {
		for _, req := range group {
			req.err = s.writeOne(req)
		}
	}
	g.mu.Lock()
	var next *writeReq
	if len(g.queue) > 0 {
		next = g.queue[0]
		next.lead = true
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	for _, req := range group[1:] { // group[0] is the leader's own request
		close(req.wake)
	}
	if next != nil {
		close(next.wake)
	}
}

// writeOne runs one caller's fn in an IMMEDIATE transaction of its own.
func (s *Store) writeOne(req *writeReq) error {
	if err := req.ctx.Err(); err != nil {
		return err
	}
	tx, err := s.w.BeginTx(req.ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	if err := req.fn(tx); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}

// writeGroup runs every fn of group in one IMMEDIATE transaction, each in a
// savepoint, and sets each caller's result. It reports false, having set
// nothing, when the transaction could not be finished: the caller then
// writes the members one by one.
func (s *Store) writeGroup(group []*writeReq) bool {
	ctx := context.Background() // the group outlives any one caller's context
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false
	}
	errs := make([]error, len(group))
	for i, req := range group {
		if err := req.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if _, err := s.exec(ctx, tx, sqlSavepoint); err != nil {
			_ = tx.Rollback()
			return false
		}
		if errs[i] = req.fn(tx); errs[i] != nil {
			if _, err := s.exec(ctx, tx, sqlRollbackW); err != nil {
				_ = tx.Rollback() // the failure ended the transaction: start over
				return false
			}
		}
		if _, err := s.exec(ctx, tx, sqlReleaseW); err != nil {
			_ = tx.Rollback()
			return false
		}
	}
	if err := tx.Commit(); err != nil {
		return false
	}
	for i, req := range group {
		req.err = errs[i]
	}
	return true
}
