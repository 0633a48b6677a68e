package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// The statements the writer runs at every run and every group commit of
// the server, prepared once at Open (prepareStatements) rather than parsed
// at every call: in the pure-Go driver parsing a small statement costs more
// than running it. Every text here is fixed, so the set stays small; any
// other statement is parsed per call as before.
const (
	sqlSavepoint = `SAVEPOINT w`
	sqlRollbackW = `ROLLBACK TO w`
	sqlReleaseW  = `RELEASE w`

	sqlInsertRun = `INSERT INTO runs (` + runColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`
	sqlRunStatus = `SELECT status FROM runs WHERE run_id = ?`
	sqlFinishRun = `UPDATE runs SET status = ?, finish_reason = ?, error_code = ?, ended_at = ? WHERE run_id = ?`

	sqlInsertChat = `INSERT INTO chats (` + chatColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlRunOfChat  = `SELECT 1 FROM runs WHERE run_id = ? AND chat_id = ?`
	sqlChatAfter  = `UPDATE chats SET last_run_id = ?, last_run_content = ?, updated_at = ?, read_status = 0, read_at = NULL
			WHERE chat_id = ?`

	sqlLastSystem   = `SELECT ord, stage, system FROM run_systems WHERE run_id = ? ORDER BY ord DESC LIMIT 1`
	sqlInsertSystem = `INSERT INTO run_systems (run_id, ord, stage, system) VALUES (?, ?, ?, ?)`

	sqlLastOrd       = `SELECT COALESCE(MAX(ord), 0) FROM messages WHERE run_id = ?`
	sqlInsertMessage = `INSERT INTO messages (run_id, ord, stage, task_id, msg_id, message) VALUES (?, ?, ?, ?, ?, ?)`

	// sqlLastSeqs takes the run ids as one JSON array, so that one
	// statement serves a group commit of any number of runs.
	sqlLastSeqs = `SELECT r.run_id, (SELECT MAX(seq) FROM events WHERE run_id = r.run_id)
			FROM runs r WHERE r.run_id IN (SELECT value FROM json_each(?))`
)

// eventRowBits bounds the multi-row event INSERTs: they insert 1, 2, 4, …
// 1<<eventRowBits rows (insertEventsSQL), so a group commit of n events
// runs at most about log2(n) of them, each prepared once.
const eventRowBits = 8

// insertEventsSQL[k] inserts 1<<k events.
var insertEventsSQL = func() (out [eventRowBits + 1]string) {
	for k := range out {
		out[k] = `INSERT INTO events (run_id, seq, type, timestamp, event) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?),", 1<<k), ",")
	}
	return out
}()

// writerStatements lists every statement prepareStatements prepares.
func writerStatements() []string {
	out := []string{sqlSavepoint, sqlRollbackW, sqlReleaseW, sqlInsertRun, sqlRunStatus, sqlFinishRun,
		sqlInsertChat, sqlRunOfChat, sqlChatAfter, sqlLastSystem, sqlInsertSystem, sqlLastOrd, sqlInsertMessage, sqlLastSeqs,
		chatExists, runExists}
	return append(out, insertEventsSQL[:]...)
}

// prepareStatements prepares writerStatements on the writer connection. A
// statement the schema cannot take (a database migrated only part of the
// way, in tests) is left out: it is parsed per call, and fails there as it
// would have.
func prepareStatements(ctx context.Context, w *sql.DB) map[string]*sql.Stmt {
	out := map[string]*sql.Stmt{}
	for _, q := range writerStatements() {
		if st, err := w.PrepareContext(ctx, q); err == nil {
			out[q] = st
		}
	}
	return out
}

// closeStatements closes the prepared statements.
func closeStatements(m map[string]*sql.Stmt) error {
	var errs []error
	for _, st := range m {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// exec runs query in the write transaction tx, prepared when it is one of
// writerStatements. The caller's context does not interrupt the statement
// (write checked it before the caller's work began, and the transaction
// may be a group's): with a context that can be canceled the driver would
// start a goroutine per statement to watch it.
func (s *Store) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	ctx = context.WithoutCancel(ctx)
	if st := s.ws[query]; st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// queryRow is exec for a statement that returns at most one row.
func (s *Store) queryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	ctx = context.WithoutCancel(ctx)
	if st := s.ws[query]; st != nil {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}

// query is exec for a statement that returns rows.
func (s *Store) query(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	ctx = context.WithoutCancel(ctx)
	if st := s.ws[query]; st != nil {
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, query, args...)
}
