// Package postgres is the store.Store of several server processes (nodes) sharing one
// PostgreSQL database, through pgx v5. It passes the conformance suite of store/sqlite and
// store/memory and adds the abilities of a shared store: run leases (store.Leases, lease.go),
// a feed of run events across the nodes over LISTEN/NOTIFY (store.Feed, feed.go) and a lock
// per document (store.DocumentLocks, locks.go).
//
// A Store is one node: Options.Node names it (default: host name, process id and a random
// suffix). The runs it creates are owned by that node; appending events to a run or finishing
// it fails with store.ErrNotOwner once another node has claimed the run (after this node's
// lease expired), so a node cut off from the others can no longer write a run's log.
//
// Schema: numbered migrations embedded in the binary (migrations/NNNN_name.sql, recorded in
// schema_migrations), applied at Open, each in its own transaction under an advisory lock, so
// nodes starting together apply every step once; a database newer than the binary is refused.
// The tables live in the connection's current schema (search_path, e.g. a DSN parameter
// search_path=aite), so several deployments or tests can share one database; the
// notification channel and the lock keys are per schema too.
//
// Text: ids, keys and codes are TEXT COLLATE "C" (they sort by bytes, as in SQLite); names,
// contents, Markdown and JSON bodies are BYTEA, kept byte for byte. Times are epoch
// milliseconds. Every method that returned nil has committed (synchronous_commit as the
// server is configured; the default waits for the WAL flush).
package postgres

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/aitexteditor/aite/internal/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Options configure Open; the zero value gives the defaults.
type Options struct {
	// Node names this process among the nodes sharing the database; it must
	// be unique among the live ones ("" = <host>-<pid>-<random>).
	Node string
	// MaxConns bounds the main connection pool when the DSN sets no
	// pool_max_conns (0 = DefaultMaxConns).
	MaxConns int32
	// Logger receives the connection losses of Listen (nil: discarded).
	Logger *slog.Logger
}

// DefaultMaxConns is the size of the main connection pool unless the DSN's
// pool_max_conns or Options.MaxConns says otherwise.
const DefaultMaxConns = 16

// lockConns bounds the connections that hold document locks (a separate
// pool, so waiting for a lock never starves the queries of the holder).
const lockConns = 8

// Store is the PostgreSQL backend, one node of the nodes sharing the
// database. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool // every query
	locks   *pgxpool.Pool // connections holding document locks
	held    heldConns     // the connections of locks in use
	conn    *pgx.ConnConfig
	node    string
	schema  string
	channel string
	log     *slog.Logger
}

var (
	_ store.Store         = (*Store)(nil)
	_ store.Leases        = (*Store)(nil)
	_ store.Feed          = (*Store)(nil)
	_ store.DocumentLocks = (*Store)(nil)
)

// IsDSN reports whether s names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a file.
func IsDSN(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Open connects to the database of dsn (a postgres:// URL or key=value
// pairs, pgx's syntax), checks that the current schema exists and applies
// the missing migrations.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", redact(err))
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
		if opts.MaxConns > 0 {
			cfg.MaxConns = opts.MaxConns
		}
	}
	node := opts.Node
	if node == "" {
		node = defaultNode()
	}
	s := &Store{conn: cfg.ConnConfig.Copy(), node: node, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("postgres: %w", redact(err))
	}
	lcfg := cfg.Copy()
	lcfg.MaxConns, lcfg.MinConns = lockConns, 0
	if s.locks, err = pgxpool.NewWithConfig(ctx, lcfg); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("postgres: %w", redact(err))
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// prepare reads the current schema and migrates it.
func (s *Store) prepare(ctx context.Context) error {
	var schema *string
	if err := s.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("postgres: connecting: %w", redact(err))
	}
	if schema == nil {
		return fmt.Errorf("postgres: no schema of the search_path exists; create it first (CREATE SCHEMA …)")
	}
	s.schema = *schema
	s.channel = channelName(s.schema)
	migs, err := store.LoadMigrations(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	return migrate(ctx, s.pool, s.key("migrate"), migs)
}

// defaultNode is <host>-<pid>-<4 random bytes>.
func defaultNode() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "node"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// channelName is the notification channel of a schema (at most 63 bytes,
// PostgreSQL's identifier limit).
func channelName(schema string) string {
	name := "aite_runs_" + schema
	if len(name) > 63 {
		name = name[:63]
	}
	return name
}

// key is the text an advisory lock key is hashed from: per schema, so
// deployments sharing a database do not share locks.
func (s *Store) key(what string) string { return s.schema + "/" + what }

// Node returns the name of this node.
func (s *Store) Node() string { return s.node }

// Schema returns the schema the tables live in.
func (s *Store) Schema() string { return s.schema }

// Close closes the connection pools; the document locks still held are
// released.
func (s *Store) Close() error {
	s.held.closeAll()
	if s.locks != nil {
		s.locks.Close()
	}
	if s.pool != nil {
		s.pool.Close()
	}
	return nil
}

// redact keeps a connection error's text but drops the password that some
// errors quote with the DSN.
func redact(err error) error {
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		return errors.New("invalid DSN: " + pe.Unwrap().Error())
	}
	return err
}

// write runs fn in a transaction; it returns ctx's error at once when ctx
// is done.
func (s *Store) write(ctx context.Context, fn func(pgx.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// Error codes of PostgreSQL the store maps.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
)

// pgCode returns the SQLSTATE of err, "" if it has none.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// failed wraps a database error with what was being done; ctx's error wins
// when ctx is done, so a canceled call reports context.Canceled.
func failed(ctx context.Context, err error, format string, args ...any) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		err = errors.Join(cerr, err)
	}
	return fmt.Errorf("postgres: "+format+": %w", append(args, err)...)
}

// millis converts a time to the stored epoch milliseconds.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis converts stored epoch milliseconds back to a UTC time.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullMillis converts an optional time for storage (NULL for nil).
func nullMillis(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// fromNullMillis converts a stored optional time back (nil for NULL).
func fromNullMillis(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := fromMillis(*ms)
	return &t
}

// nullBytes stores an optional body: NULL for empty.
func nullBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// collect scans every row with scan; the result is never nil.
func collect[T any](rows pgx.Rows, err error, scan func(pgx.Rows) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
