package store

import (
	"context"
	"fmt"
	"time"
)

// Several server processes (nodes) may share one store (store/postgres). The
// optional interfaces below are what such a store adds to Store; a server
// finds them by a type assertion. A store without them (store/sqlite,
// store/memory) belongs to one process, which executes every run it stores.

// Leases is the ability of a store shared by several nodes to give each run
// an owner: the node that created it (the store is opened as one node). A
// node keeps its runs by renewing its lease; when it stops (it died, or lost
// the database), another node claims its runs once the lease has expired
// and closes them. The store's own clock measures the leases, so the nodes'
// clocks need not agree. Appending events to a run and finishing it fail
// with ErrNotOwner on a node that no longer owns the run, so a node that
// lost its lease cannot write a claimed run's log any more.
type Leases interface {
	// RenewLease extends this node's lease to ttl from now (registering the
	// node the first time). lost reports that the lease had expired before:
	// other nodes may have claimed this node's runs.
	RenewLease(ctx context.Context, ttl time.Duration) (lost bool, err error)
	// StartRun is CreateRun for a node: the run is owned by this node, whose
	// lease must be live (else ErrNotOwner), and it is refused with a
	// *ChatBusyError when its chat already has a running run, on any node.
	StartRun(ctx context.Context, r Run) error
	// ClaimExpiredRuns makes this node the owner of every running run whose
	// owner's lease has expired (or that has no owner) and returns them in
	// run id order, for the caller to close. Runs another node is claiming
	// at the same moment are left to it.
	ClaimExpiredRuns(ctx context.Context) ([]Run, error)
}

// ChatBusyError is Leases.StartRun's error for a chat that already has a
// running run; it wraps ErrConflict.
type ChatBusyError struct {
	ChatID string
	RunID  string // the running run
}

// Error implements error.
func (e *ChatBusyError) Error() string {
	return fmt.Sprintf("chat %q has a running run %q: %v", e.ChatID, e.RunID, ErrConflict)
}

// Unwrap makes the error match ErrConflict.
func (e *ChatBusyError) Unwrap() error { return ErrConflict }

// Note tells the nodes sharing a store that a run has new events, stored up
// to Seq, or (Ended) that the run has ended and its end is recorded (the run
// finished, its chat updated), or (Cancel) asks the node executing the run
// to cancel it. Body is a message about the run between nodes, opaque to
// the store (at most MaxNoteBody bytes).
type Note struct {
	RunID  string
	Seq    int64
	Ended  bool
	Cancel bool
	Body   []byte
}

// MaxNoteBody bounds Note.Body (Announce refuses a longer one with
// ErrInvalid).
const MaxNoteBody = 5000

// Feed is the ability of a store shared by several nodes to tell every node,
// itself included, when runs get new events, whichever node stored them:
// every committed append of events sends a Note per run with its last
// stored seq, at commit, so a note never announces an event that is not
// durable. A node serves the clients following runs of other nodes by
// reading the stored events the notes announce, for all those runs at once
// (ListEventsAfter).
type Feed interface {
	// Listen calls fn with every note from now on until ctx is done, and
	// returns ctx's error (or an error when it cannot listen at all). Each
	// time it starts listening, the first time included, it calls fn with
	// the zero Note: notes may have been missed before, so whoever follows a
	// run should read again. fn runs on Listen's goroutine and must not block.
	Listen(ctx context.Context, fn func(Note)) error
	// Announce sends n to every node.
	Announce(ctx context.Context, n Note) error
	// ListEventsAfter returns the events of several runs, for each run those
	// with a seq above its entry in after, in run id then seq order; an
	// unknown run has none.
	ListEventsAfter(ctx context.Context, after map[string]int64) ([]Event, error)
}

// DocumentLocks is the ability of a store shared by several nodes to
// serialise the work on one document across them. Each node keeps the
// documents it works on in memory, so before it reads or edits one it takes
// the document's lock and checks that its copy is the stored revision,
// reloading it otherwise; an edit never overwrites another node's.
type DocumentLocks interface {
	// LockDocument waits until the caller holds the lock of document id (no
	// other holder on any node) and returns the document's stored revision
	// and the function that releases the lock, to be called exactly once. An
	// unknown document gives ErrNotFound and holds nothing. The lock is
	// released too when the node dies.
	LockDocument(ctx context.Context, id string) (revision int, unlock func(), err error)
}
