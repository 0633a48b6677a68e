package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/aitexteditor/aite/internal/store"
)

// LockDocument implements store.DocumentLocks with a session advisory lock
// (pg_advisory_lock of the hash of the schema and the document id) held on
// a connection of a pool of its own: waiting for a lock never takes a
// connection the holder needs. The revision is read after the lock is
// held. If releasing fails the connection is closed, which releases the
// lock too, as does the end of the node's process.
func (s *Store) LockDocument(ctx context.Context, id string) (int, func(), error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	conn, err := s.held.acquire(ctx, s.locks)
	if err != nil {
		return 0, nil, failed(ctx, err, "a connection for the lock of document %q", id)
	}
	key := s.key("document/" + id)
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, key); err != nil {
		s.held.discard(conn) // the lock may have been granted as the wait was canceled
		return 0, nil, failed(ctx, err, "waiting for the lock of document %q", id)
	}
	var once sync.Once
	unlock := func() {
		once.Do(func() {
			if !s.held.take(conn) {
				return // Close has closed the connection, which released the lock
			}
			cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var released bool
			if err := conn.QueryRow(cctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, key).Scan(&released); err != nil || !released {
				closeConn(conn)
				return
			}
			conn.Release()
		})
	}
	var rev int
	err = conn.QueryRow(ctx, `SELECT revision FROM documents WHERE document_id = $1`, id).Scan(&rev)
	if err != nil {
		unlock()
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, nil, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
		}
		return 0, nil, failed(ctx, err, "reading the revision of document %q", id)
	}
	return rev, unlock, nil
}

// heldConns are the connections of the lock pool in use: Close closes them
// (releasing their locks), as pgxpool.Pool.Close would wait for them.
type heldConns struct {
	mu     sync.Mutex
	conns  map[*pgxpool.Conn]struct{}
	closed bool
}

// acquire takes a connection from pool and records it.
func (h *heldConns) acquire(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		conn.Release()
		return nil, errors.New("the store is closed")
	}
	if h.conns == nil {
		h.conns = map[*pgxpool.Conn]struct{}{}
	}
	h.conns[conn] = struct{}{}
	return conn, nil
}

// take forgets conn; false if Close has taken it.
func (h *heldConns) take(conn *pgxpool.Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.conns[conn]
	delete(h.conns, conn)
	return ok
}

// discard forgets and closes conn.
func (h *heldConns) discard(conn *pgxpool.Conn) {
	if h.take(conn) {
		closeConn(conn)
	}
}

// closeAll closes every held connection; later acquires fail.
func (h *heldConns) closeAll() {
	h.mu.Lock()
	conns := h.conns
	h.conns, h.closed = nil, true
	h.mu.Unlock()
	for conn := range conns {
		closeConn(conn)
	}
}

// closeConn closes a pool connection instead of returning it to the pool.
func closeConn(conn *pgxpool.Conn) {
	cctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = conn.Conn().Close(cctx)
	conn.Release()
}
