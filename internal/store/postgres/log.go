package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/aitexteditor/aite/internal/store"
)

// AppendMessages implements store.Messages: one statement that numbers
// the messages after the run's last one. Messages of one run are appended
// by the node executing it, one call after the other; should two calls
// meet, the second fails on the primary key and is tried again.
func (s *Store) AppendMessages(ctx context.Context, runID string, msgs ...store.Message) error {
	if err := store.ValidateMessages(runID, msgs); err != nil {
		return err
	}
	if len(msgs) == 0 {
		return s.needRun(ctx, runID)
	}
	stages, tasks, ids := make([]string, len(msgs)), make([]string, len(msgs)), make([]string, len(msgs))
	bodies := make([][]byte, len(msgs))
	for i, m := range msgs {
		stages[i], tasks[i], ids[i], bodies[i] = m.Stage, m.TaskID, m.MsgID, m.Body
	}
	return s.retryOnKey(ctx, "appending messages to run "+runID, func() error {
		_, err := s.pool.Exec(ctx, `INSERT INTO messages (run_id, ord, stage, task_id, msg_id, message)
			SELECT $1, m.i + COALESCE((SELECT max(ord) FROM messages WHERE run_id = $1), 0), m.stage, m.task, m.id, m.body
			FROM unnest($2::text[], $3::text[], $4::text[], $5::bytea[]) WITH ORDINALITY AS m(stage, task, id, body, i)`,
			runID, stages, tasks, ids, bodies)
		if pgCode(err) == codeForeignKeyViolation {
			return fmt.Errorf("run %q: %w", runID, store.ErrNotFound)
		}
		return err
	})
}

// keyRetries bounds the attempts of a statement that numbers rows and met
// a concurrent one on the primary key.
const keyRetries = 3

// retryOnKey runs fn until it does not fail on a unique key (at most
// keyRetries times).
func (s *Store) retryOnKey(ctx context.Context, what string, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var err error
	for range keyRetries {
		if err = fn(); pgCode(err) != codeUniqueViolation {
			break
		}
	}
	switch {
	case err == nil, errors.Is(err, store.ErrNotFound):
		return err
	case pgCode(err) == codeUniqueViolation:
		return fmt.Errorf("%s: %w: %v", what, store.ErrConflict, err)
	}
	return failed(ctx, err, "%s", what)
}

const messageColumns = `run_id, ord, stage, task_id, msg_id, message`

// ListMessages implements store.Messages.
func (s *Store) ListMessages(ctx context.Context, runID string) ([]store.Message, error) {
	if err := s.needRun(ctx, runID); err != nil {
		return nil, err
	}
	return s.messages(ctx, `SELECT `+messageColumns+` FROM messages WHERE run_id = $1 ORDER BY ord`, runID)
}

// RecentMessages implements store.Messages.
func (s *Store) RecentMessages(ctx context.Context, chatID string, k int) ([]store.Message, error) {
	if err := s.needChat(ctx, chatID); err != nil {
		return nil, err
	}
	return s.messages(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE run_id IN (SELECT run_id FROM runs WHERE chat_id = $1 ORDER BY run_id DESC LIMIT $2)
		ORDER BY run_id, ord`, chatID, max(k, 0))
}

func (s *Store) messages(ctx context.Context, query string, args ...any) ([]store.Message, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	out, err := collect(rows, err, func(r pgx.Rows) (store.Message, error) {
		var m store.Message
		err := r.Scan(&m.RunID, &m.Ord, &m.Stage, &m.TaskID, &m.MsgID, &m.Body)
		return m, err
	})
	if err != nil {
		return nil, failed(ctx, err, "reading messages")
	}
	return out, nil
}

// AppendSystem implements store.Systems: one statement that compares
// with the run's last snapshot and appends (see AppendMessages).
func (s *Store) AppendSystem(ctx context.Context, runID, stage string, body json.RawMessage) (bool, error) {
	if err := store.ValidateSystem(runID, body); err != nil {
		return false, err
	}
	stored := false
	err := s.retryOnKey(ctx, "appending a system snapshot to run "+runID, func() error {
		tag, err := s.pool.Exec(ctx, `WITH last AS (SELECT ord, stage, system FROM run_systems
				WHERE run_id = $1 ORDER BY ord DESC LIMIT 1)
			INSERT INTO run_systems (run_id, ord, stage, system)
			SELECT $1, COALESCE((SELECT ord FROM last), 0) + 1, $2, $3
			WHERE NOT EXISTS (SELECT 1 FROM last WHERE stage = $2 AND system = $3)`, runID, stage, []byte(body))
		if pgCode(err) == codeForeignKeyViolation {
			return fmt.Errorf("run %q: %w", runID, store.ErrNotFound)
		}
		stored = err == nil && tag.RowsAffected() == 1
		return err
	})
	if err == nil && !stored {
		err = s.needRun(ctx, runID) // the same snapshot as the last one, or no such run
	}
	return stored, err
}

// ListSystems implements store.Systems.
func (s *Store) ListSystems(ctx context.Context, runID string) ([]store.SystemSnapshot, error) {
	if err := s.needRun(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT run_id, ord, stage, system FROM run_systems WHERE run_id = $1 ORDER BY ord`, runID)
	out, err := collect(rows, err, func(r pgx.Rows) (store.SystemSnapshot, error) {
		var snap store.SystemSnapshot
		err := r.Scan(&snap.RunID, &snap.Ord, &snap.Stage, &snap.Body)
		return snap, err
	})
	if err != nil {
		return nil, failed(ctx, err, "reading system snapshots of run %q", runID)
	}
	return out, nil
}

// AppendEvents implements store.Events; see AppendEventLogs.
func (s *Store) AppendEvents(ctx context.Context, runID string, events ...store.Event) error {
	return s.appendEvents(ctx, []string{runID}, map[string][]store.Event{runID: events})
}

// AppendEventLogs implements store.Events: the events of every run in one
// transaction. The runs are locked against other writers of their logs, a
// run owned by another node is store.ErrNotOwner, and at commit every node
// gets a Note per run with its last seq (Listen).
func (s *Store) AppendEventLogs(ctx context.Context, events ...store.Event) error {
	runIDs, byRun, err := store.EventsByRun(events)
	if err != nil || len(runIDs) == 0 {
		return err
	}
	return s.appendEvents(ctx, runIDs, byRun)
}

// appendEvents is one transaction in two round trips: BEGIN, the locks and
// the last seqs in the first batch; the inserts, the notes and COMMIT in
// the second (after the events were checked against the last seqs).
func (s *Store) appendEvents(ctx context.Context, runIDs []string, byRun map[string][]store.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return failed(ctx, err, "appending events")
	}
	defer endTx(conn)
	last, err := s.lockRuns(ctx, conn, runIDs)
	if err != nil {
		return err
	}
	var cols eventColumns
	var notes []store.Note
	for _, id := range runIDs {
		l, ok := last[id]
		if !ok {
			return fmt.Errorf("run %q: %w", id, store.ErrNotFound)
		}
		evs := byRun[id]
		if err := store.ValidateEvents(id, l, evs); err != nil {
			return err
		}
		for _, e := range evs {
			cols.add(id, e)
		}
		if n := len(evs); n > 0 {
			notes = append(notes, store.Note{RunID: id, Seq: evs[n-1].Seq})
		}
	}
	batch := &pgx.Batch{}
	if len(cols.runs) > 0 {
		batch.Queue(`INSERT INTO events (run_id, seq, type, timestamp, event)
			SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bytea[])`,
			cols.runs, cols.seqs, cols.types, cols.stamps, cols.bodies)
	}
	for _, payload := range encodeNotes(notes) {
		batch.Queue(`SELECT pg_notify($1, $2)`, s.channel, payload)
	}
	batch.Queue(`COMMIT`)
	if err := conn.SendBatch(ctx, batch).Close(); err != nil {
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("%w: a concurrent append stored the same seq: %v", store.ErrConflict, err)
		}
		return failed(ctx, err, "appending %d events", len(cols.runs))
	}
	return nil
}

// endTx returns a connection to the pool with no transaction open: one
// left open (a failed or refused append) is rolled back, and the
// connection is closed if even that fails.
func endTx(conn *pgxpool.Conn) {
	if conn.Conn().PgConn().TxStatus() != 'I' {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, `ROLLBACK`); err != nil {
			closeConn(conn)
			return
		}
	}
	conn.Release()
}

// eventColumns are events as column arrays, for one INSERT … unnest.
type eventColumns struct {
	runs   []string
	seqs   []int64
	types  []string
	stamps []int64
	bodies [][]byte
}

func (c *eventColumns) add(runID string, e store.Event) {
	c.runs, c.seqs, c.types = append(c.runs, runID), append(c.seqs, e.Seq), append(c.types, e.Type)
	c.stamps, c.bodies = append(c.stamps, e.Timestamp), append(c.bodies, e.Body)
}

// lockRuns takes the event-log lock of each of runIDs (a transaction
// advisory lock, in key order so two writers never deadlock: it costs no
// row write, unlike a row lock), then checks that this node may write them
// and returns the last stored seq of each that exists. Every writer of a
// log takes the lock first, so the owner it reads is current: a node whose
// run was claimed gets store.ErrNotOwner, and an append that read the old
// owner commits before the new owner reads the log.
//
// It begins the transaction on conn: the first round trip of appendEvents.
func (s *Store) lockRuns(ctx context.Context, conn *pgxpool.Conn, runIDs []string) (map[string]int64, error) {
	keys := make([]string, len(runIDs))
	for i, id := range runIDs {
		keys[i] = s.key("run/" + id)
	}
	batch := &pgx.Batch{}
	batch.Queue(`BEGIN`)
	batch.Queue(`SELECT pg_advisory_xact_lock(k)
		FROM (SELECT DISTINCT hashtextextended(t, 0) AS k FROM unnest($1::text[]) AS t ORDER BY 1) AS keys`, keys)
	batch.Queue(`SELECT r.run_id, r.node_id,
			COALESCE((SELECT max(e.seq) FROM events e WHERE e.run_id = r.run_id), 0)
		FROM runs r WHERE r.run_id = ANY($1)`, runIDs)
	br := conn.SendBatch(ctx, batch)
	defer br.Close()
	for range 2 {
		if _, err := br.Exec(); err != nil {
			return nil, failed(ctx, err, "locking the logs of %d runs", len(runIDs))
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, failed(ctx, err, "locking %d runs", len(runIDs))
	}
	defer rows.Close()
	last := make(map[string]int64, len(runIDs))
	for rows.Next() {
		var id, node string
		var seq int64
		if err := rows.Scan(&id, &node, &seq); err != nil {
			return nil, failed(ctx, err, "locking runs")
		}
		if err := s.owns(id, node); err != nil {
			return nil, err
		}
		last[id] = seq
	}
	if err := rows.Err(); err != nil {
		return nil, failed(ctx, err, "locking runs")
	}
	return last, nil
}

// ListEvents implements store.Events (one query when the run has events
// to return, the way subscribers call it).
func (s *Store) ListEvents(ctx context.Context, runID string, afterSeq int64) ([]store.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT run_id, seq, type, timestamp, event FROM events
		WHERE run_id = $1 AND seq > $2 ORDER BY seq`, runID, afterSeq)
	out, err := collect(rows, err, scanEvent)
	if err != nil {
		return nil, failed(ctx, err, "reading the events of run %q", runID)
	}
	if len(out) == 0 {
		if err := s.needRun(ctx, runID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ListEventsAfter implements store.Feed: one query for every run.
func (s *Store) ListEventsAfter(ctx context.Context, after map[string]int64) ([]store.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(after) == 0 {
		return []store.Event{}, nil
	}
	ids, seqs := make([]string, 0, len(after)), make([]int64, 0, len(after))
	for id, seq := range after {
		ids, seqs = append(ids, id), append(seqs, seq)
	}
	rows, err := s.pool.Query(ctx, `SELECT e.run_id, e.seq, e.type, e.timestamp, e.event
		FROM unnest($1::text[], $2::bigint[]) AS c(run_id, after)
		JOIN events e ON e.run_id = c.run_id COLLATE "C" AND e.seq > c.after
		ORDER BY e.run_id, e.seq`, ids, seqs)
	out, err := collect(rows, err, scanEvent)
	if err != nil {
		return nil, failed(ctx, err, "reading the events of %d runs", len(after))
	}
	return out, nil
}

func scanEvent(r pgx.Rows) (store.Event, error) {
	var e store.Event
	err := r.Scan(&e.RunID, &e.Seq, &e.Type, &e.Timestamp, &e.Body)
	return e, err
}

// LastSeq implements store.Events.
func (s *Store) LastSeq(ctx context.Context, runID string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var last *int64
	err := s.pool.QueryRow(ctx, `SELECT (SELECT max(seq) FROM events WHERE run_id = r.run_id) FROM runs r WHERE r.run_id = $1`,
		runID).Scan(&last)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("run %q: %w", runID, store.ErrNotFound)
	} else if err != nil {
		return 0, failed(ctx, err, "last seq of run %q", runID)
	}
	if last == nil {
		return 0, nil
	}
	return *last, nil
}
