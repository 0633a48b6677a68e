// Package sqlite is the default store.Store: one SQLite file through the pure-Go driver
// modernc.org/sqlite, in WAL mode, with its schema kept by numbered migrations embedded in the
// binary (migrations/NNNN_name.sql, recorded in schema_migrations).
//
// Writes go through a single connection, so they are serialised in Go and never meet
// SQLITE_BUSY inside the process. Concurrent write calls are group-committed (write.go): the
// calls that arrive while a transaction is being written share the next IMMEDIATE transaction,
// each in its own savepoint, so one fsync serves them all and a failing call is rolled back
// alone; every call returns once its own writes are committed. The statements the writer runs
// at every run and group commit are prepared once, at Open (stmts.go). Reads use a separate pool
// of query_only connections and run concurrently with the writer (WAL).
//
// Durability: a method that returned nil has committed. With the default synchronous=FULL
// every commit is fsynced, so it survives a killed process and also a power loss or OS crash.
// WithSynchronous(SyncNormal) skips that fsync: a killed process still loses nothing (the
// commit is in the WAL file, written to the OS before the method returns), only the last
// commits before a power loss may be lost. The cost of FULL, measured by BenchmarkAppendEvents
// (batches of 20 events, ext4 on a virtual disk): ~0.75 ms per batch, 25–28k events/s, against
// 0.4–0.5 ms and 38–53k events/s with NORMAL. The server stores every event before it is sent,
// in group commits of whatever waits (internal/server/commit.go), so FULL adds about 0.3 ms to the
// wait of an event at a commit.
//
// Times are stored as epoch milliseconds (UTC); JSON bodies as TEXT exactly as given.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/store"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Synchronous is the value of PRAGMA synchronous for the writer connection.
type Synchronous string

// The synchronous modes worth choosing in WAL mode.
const (
	SyncFull   Synchronous = "FULL"   // fsync at every commit (default)
	SyncNormal Synchronous = "NORMAL" // fsync only at checkpoints; safe against killed processes
)

// Option changes how Open configures the database.
type Option func(*config)

type config struct {
	sync    Synchronous
	busy    time.Duration
	readers int
}

func defaultConfig() config {
	return config{sync: SyncFull, busy: 5 * time.Second, readers: max(4, runtime.GOMAXPROCS(0))}
}

// WithSynchronous sets the synchronous mode (default SyncFull).
func WithSynchronous(m Synchronous) Option { return func(c *config) { c.sync = m } }

// WithBusyTimeout sets how long a connection waits for a lock held by another process
// (default 5 s).
func WithBusyTimeout(d time.Duration) Option { return func(c *config) { c.busy = d } }

// WithReaders sets the size of the read connection pool (default max(4, GOMAXPROCS)).
func WithReaders(n int) Option { return func(c *config) { c.readers = max(1, n) } }

// Store is the SQLite backend. It is safe for concurrent use.
type Store struct {
	w  *sql.DB              // one connection, every write
	ws map[string]*sql.Stmt // the writer's prepared statements (stmts.go)
	r  *sql.DB              // query_only connections, every read
	gc groupCommit
}

var _ store.Store = (*Store)(nil)

// Open opens (creating it and its parent directory if needed) the database file at path,
// switches it to WAL and applies the missing migrations.
func Open(path string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.sync != SyncFull && cfg.sync != SyncNormal {
		return nil, fmt.Errorf("sqlite: synchronous mode %q: %w", cfg.sync, store.ErrInvalid)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: creating the database directory: %w", err)
	}
	migs, err := embeddedMigrations()
	if err != nil {
		return nil, err
	}
	return open(context.Background(), abs, cfg, migs)
}

func open(ctx context.Context, abs string, cfg config, migs []store.Migration) (*Store, error) {
	w, err := sql.Open("sqlite", dsn(abs, cfg, false))
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := prepareWriter(ctx, w, migs); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	ws := prepareStatements(ctx, w)
	r, err := sql.Open("sqlite", dsn(abs, cfg, true))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: %w", err), closeStatements(ws), w.Close())
	}
	r.SetMaxOpenConns(cfg.readers)
	r.SetMaxIdleConns(cfg.readers)
	return &Store{w: w, ws: ws, r: r}, nil
}

// prepareWriter checks that the file is in WAL mode and migrates it.
func prepareWriter(ctx context.Context, w *sql.DB, migs []store.Migration) error {
	var mode string
	if err := w.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fmt.Errorf("sqlite: opening the database: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("sqlite: the database is in journal mode %q, not WAL", mode)
	}
	return migrate(ctx, w, migs)
}

// dsn builds the driver's connection string: a file: URI (so any path is safe) with the
// pragmas each new connection runs.
func dsn(abs string, cfg config, reader bool) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows volume: file:///C:/…
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", cfg.busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous("+string(cfg.sync)+")")
	if reader {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Set("_txlock", "immediate")
	}
	return (&url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}).String()
}

// Close closes both connection pools; the last one out checkpoints the WAL.
func (s *Store) Close() error {
	return errors.Join(s.r.Close(), closeStatements(s.ws), s.w.Close())
}

// read runs fn in one read transaction, so its statements see one snapshot.
func (s *Store) read(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	err = fn(tx)
	return errors.Join(err, ignoreDone(tx.Rollback()))
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// need returns ErrNotFound (with what and id as context) unless query finds a row for id.
func need(ctx context.Context, tx *sql.Tx, query, what, id string) error {
	return found(tx.QueryRowContext(ctx, query, id), what, id)
}

// found returns ErrNotFound (with what and id as context) unless row is there.
func found(row *sql.Row, what, id string) error {
	var one int
	switch err := row.Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%s %q: %w", what, id, store.ErrNotFound)
	case err != nil:
		return fmt.Errorf("sqlite: looking up %s %q: %w", what, id, err)
	}
	return nil
}

const (
	chatExists     = `SELECT 1 FROM chats WHERE chat_id = ?`
	runExists      = `SELECT 1 FROM runs WHERE run_id = ?`
	documentExists = `SELECT 1 FROM documents WHERE document_id = ?`
)

func needChat(ctx context.Context, tx *sql.Tx, id string) error {
	return need(ctx, tx, chatExists, "chat", id)
}

func needRun(ctx context.Context, tx *sql.Tx, id string) error {
	return need(ctx, tx, runExists, "run", id)
}

// writerNeedChat is needChat in a write transaction (prepared).
func (s *Store) writerNeedChat(ctx context.Context, tx *sql.Tx, id string) error {
	return found(s.queryRow(ctx, tx, chatExists, id), "chat", id)
}

// writerNeedRun is needRun in a write transaction (prepared).
func (s *Store) writerNeedRun(ctx context.Context, tx *sql.Tx, id string) error {
	return found(s.queryRow(ctx, tx, runExists, id), "run", id)
}

// millis converts a time to the stored epoch milliseconds.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis converts stored epoch milliseconds back to a UTC time.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullMillis converts an optional time for storage (NULL for nil).
func nullMillis(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// fromNullMillis converts a stored optional time back (nil for NULL).
func fromNullMillis(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromMillis(n.Int64)
	return &t
}

// nullText converts an optional JSON body for storage (NULL for empty).
func nullText(b []byte) sql.NullString {
	return sql.NullString{String: string(b), Valid: len(b) > 0}
}

// fromNullText converts a stored optional JSON body back (nil for NULL).
func fromNullText(n sql.NullString) []byte {
	if !n.Valid || n.String == "" {
		return nil
	}
	return []byte(n.String)
}
