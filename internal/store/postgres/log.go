package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/aitexteditor/aite/internal/store"
)

// lockRun locks run runID against the other writers of its log (FOR NO KEY
// UPDATE, so inserts that reference the run are not held up) and returns
// its owner; store.ErrNotFound for an unknown run.
func lockRun(ctx context.Context, tx pgx.Tx, runID string) (node string, err error) {
	err = tx.QueryRow(ctx, `SELECT node_id FROM runs WHERE run_id = $1 FOR NO KEY UPDATE`, runID).Scan(&node)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("run %q: %w", runID, store.ErrNotFound)
	} else if err != nil {
		return "", failed(ctx, err, "locking run %q", runID)
	}
	return node, nil
}

// AppendMessages implements store.Messages.
func (s *Store) AppendMessages(ctx context.Context, runID string, msgs ...store.Message) error {
	if err := store.ValidateMessages(runID, msgs); err != nil {
		return err
	}
	return s.write(ctx, func(tx pgx.Tx) error {
		if _, err := lockRun(ctx, tx, runID); err != nil {
			return err
		}
		if len(msgs) == 0 {
			return nil
		}
		var last int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(max(ord), 0) FROM messages WHERE run_id = $1`, runID).Scan(&last); err != nil {
			return failed(ctx, err, "messages of run %q", runID)
		}
		ords := make([]int32, len(msgs))
		stages, tasks, ids := make([]string, len(msgs)), make([]string, len(msgs)), make([]string, len(msgs))
		bodies := make([][]byte, len(msgs))
		for i, m := range msgs {
			ords[i], stages[i], tasks[i], ids[i], bodies[i] = int32(last+1+i), m.Stage, m.TaskID, m.MsgID, m.Body
		}
		_, err := tx.Exec(ctx, `INSERT INTO messages (run_id, ord, stage, task_id, msg_id, message)
			SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::bytea[])`,
			runID, ords, stages, tasks, ids, bodies)
		if err != nil {
			return failed(ctx, err, "appending messages to run %q", runID)
		}
		return nil
	})
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

// AppendSystem implements store.Systems.
func (s *Store) AppendSystem(ctx context.Context, runID, stage string, body json.RawMessage) (bool, error) {
	if err := store.ValidateSystem(runID, body); err != nil {
		return false, err
	}
	stored := false
	err := s.write(ctx, func(tx pgx.Tx) error {
		if _, err := lockRun(ctx, tx, runID); err != nil {
			return err
		}
		var last int
		var lastStage string
		var lastBody []byte
		err := tx.QueryRow(ctx, `SELECT ord, stage, system FROM run_systems WHERE run_id = $1 ORDER BY ord DESC LIMIT 1`,
			runID).Scan(&last, &lastStage, &lastBody)
		switch {
		case err == nil && lastStage == stage && bytes.Equal(lastBody, body):
			return nil
		case err != nil && !errors.Is(err, pgx.ErrNoRows):
			return failed(ctx, err, "system snapshots of run %q", runID)
		}
		_, err = tx.Exec(ctx, `INSERT INTO run_systems (run_id, ord, stage, system) VALUES ($1, $2, $3, $4)`,
			runID, last+1, stage, []byte(body))
		if err != nil {
			return failed(ctx, err, "appending a system snapshot to run %q", runID)
		}
		stored = true
		return nil
	})
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

func (s *Store) appendEvents(ctx context.Context, runIDs []string, byRun map[string][]store.Event) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		last, err := s.lockRuns(ctx, tx, runIDs)
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
		if len(cols.runs) == 0 {
			return nil
		}
		batch := &pgx.Batch{}
		batch.Queue(`INSERT INTO events (run_id, seq, type, timestamp, event)
			SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bytea[])`,
			cols.runs, cols.seqs, cols.types, cols.stamps, cols.bodies)
		for _, payload := range encodeNotes(notes) {
			batch.Queue(`SELECT pg_notify($1, $2)`, s.channel, payload)
		}
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			if pgCode(err) == codeUniqueViolation {
				return fmt.Errorf("%w: a concurrent append stored the same seq: %v", store.ErrConflict, err)
			}
			return failed(ctx, err, "appending %d events", len(cols.runs))
		}
		return nil
	})
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

// lockRuns locks runIDs in id order (so two writers never deadlock),
// checks that this node may write them and returns the last stored seq of
// each that exists.
func (s *Store) lockRuns(ctx context.Context, tx pgx.Tx, runIDs []string) (map[string]int64, error) {
	rows, err := tx.Query(ctx, `SELECT r.run_id, r.node_id,
			COALESCE((SELECT max(e.seq) FROM events e WHERE e.run_id = r.run_id), 0)
		FROM runs r WHERE r.run_id = ANY($1) ORDER BY r.run_id FOR NO KEY UPDATE OF r`, runIDs)
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

// ListEvents implements store.Events.
func (s *Store) ListEvents(ctx context.Context, runID string, afterSeq int64) ([]store.Event, error) {
	if err := s.needRun(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT run_id, seq, type, timestamp, event FROM events
		WHERE run_id = $1 AND seq > $2 ORDER BY seq`, runID, afterSeq)
	out, err := collect(rows, err, func(r pgx.Rows) (store.Event, error) {
		var e store.Event
		err := r.Scan(&e.RunID, &e.Seq, &e.Type, &e.Timestamp, &e.Body)
		return e, err
	})
	if err != nil {
		return nil, failed(ctx, err, "reading the events of run %q", runID)
	}
	return out, nil
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
