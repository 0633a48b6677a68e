package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"

	"github.com/aitexteditor/aite/internal/store"
)

// AppendMessages implements store.Messages.
func (s *Store) AppendMessages(ctx context.Context, runID string, msgs ...store.Message) error {
	if err := store.ValidateMessages(runID, msgs); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := s.writerNeedRun(ctx, tx, runID); err != nil {
			return err
		}
		var last int
		if err := s.queryRow(ctx, tx, sqlLastOrd, runID).Scan(&last); err != nil {
			return fmt.Errorf("sqlite: messages of run %q: %w", runID, err)
		}
		for i, m := range msgs {
			_, err := s.exec(ctx, tx, sqlInsertMessage, runID, last+1+i, m.Stage, m.TaskID, m.MsgID, string(m.Body))
			if err != nil {
				return fmt.Errorf("sqlite: appending a message to run %q: %w", runID, err)
			}
		}
		return nil
	})
}

const messageColumns = `run_id, ord, stage, task_id, msg_id, message`

// ListMessages implements store.Messages.
func (s *Store) ListMessages(ctx context.Context, runID string) ([]store.Message, error) {
	var out []store.Message
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := needRun(ctx, tx, runID); err != nil {
			return err
		}
		var err error
		out, err = queryAll(ctx, tx, scanMessage, `SELECT `+messageColumns+` FROM messages WHERE run_id = ? ORDER BY ord`, runID)
		return err
	})
	return out, err
}

// RecentMessages implements store.Messages.
func (s *Store) RecentMessages(ctx context.Context, chatID string, k int) ([]store.Message, error) {
	var out []store.Message
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := needChat(ctx, tx, chatID); err != nil {
			return err
		}
		var err error
		out, err = queryAll(ctx, tx, scanMessage, `SELECT `+messageColumns+` FROM messages
			WHERE run_id IN (SELECT run_id FROM runs WHERE chat_id = ? ORDER BY run_id DESC LIMIT ?)
			ORDER BY run_id, ord`, chatID, max(k, 0))
		return err
	})
	return out, err
}

func scanMessage(sc scanner) (store.Message, error) {
	var m store.Message
	var body string
	err := sc.Scan(&m.RunID, &m.Ord, &m.Stage, &m.TaskID, &m.MsgID, &body)
	m.Body = []byte(body)
	return m, err
}

// AppendSystem implements store.Systems.
func (s *Store) AppendSystem(ctx context.Context, runID, stage string, body json.RawMessage) (bool, error) {
	if err := store.ValidateSystem(runID, body); err != nil {
		return false, err
	}
	stored := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := s.writerNeedRun(ctx, tx, runID); err != nil {
			return err
		}
		var last int
		var lastStage, lastBody string
		err := s.queryRow(ctx, tx, sqlLastSystem, runID).Scan(&last, &lastStage, &lastBody)
		switch {
		case err == nil && lastStage == stage && bytes.Equal([]byte(lastBody), body):
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("sqlite: system snapshots of run %q: %w", runID, err)
		}
		_, err = s.exec(ctx, tx, sqlInsertSystem, runID, last+1, stage, string(body))
		if err != nil {
			return fmt.Errorf("sqlite: appending a system snapshot to run %q: %w", runID, err)
		}
		stored = true
		return nil
	})
	return stored, err
}

// ListSystems implements store.Systems.
func (s *Store) ListSystems(ctx context.Context, runID string) ([]store.SystemSnapshot, error) {
	var out []store.SystemSnapshot
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := needRun(ctx, tx, runID); err != nil {
			return err
		}
		var err error
		out, err = queryAll(ctx, tx, func(sc scanner) (store.SystemSnapshot, error) {
			var snap store.SystemSnapshot
			var body string
			err := sc.Scan(&snap.RunID, &snap.Ord, &snap.Stage, &body)
			snap.Body = []byte(body)
			return snap, err
		}, `SELECT run_id, ord, stage, system FROM run_systems WHERE run_id = ? ORDER BY ord`, runID)
		return err
	})
	return out, err
}

// AppendEvents implements store.Events.
func (s *Store) AppendEvents(ctx context.Context, runID string, events ...store.Event) error {
	byRun := map[string][]store.Event{runID: events}
	return s.write(ctx, func(tx *sql.Tx) error { return s.appendEvents(ctx, tx, []string{runID}, byRun) })
}

// AppendEventLogs implements store.Events: one transaction, so one fsync, for the events of
// every run (the server's group commit).
func (s *Store) AppendEventLogs(ctx context.Context, events ...store.Event) error {
	runIDs, byRun, err := store.EventsByRun(events)
	if err != nil || len(runIDs) == 0 {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error { return s.appendEvents(ctx, tx, runIDs, byRun) })
}

// appendEvents checks the events of runIDs against their runs' last seqs and inserts them.
// Set-based prepared statements keep a group commit cheap: one query for the last seqs of all
// its runs and multi-row INSERTs of power-of-two sizes (a statement per event, or one parsed
// per commit, costs more than the rows themselves in the pure-Go driver).
func (s *Store) appendEvents(ctx context.Context, tx *sql.Tx, runIDs []string, byRun map[string][]store.Event) error {
	last, err := s.lastSeqs(ctx, tx, runIDs)
	if err != nil {
		return err
	}
	var rows []store.Event
	for _, id := range runIDs {
		l, ok := last[id]
		if !ok {
			return fmt.Errorf("run %q: %w", id, store.ErrNotFound)
		}
		if err := store.ValidateEvents(id, l, byRun[id]); err != nil {
			return err
		}
		for _, e := range byRun[id] {
			e.RunID = id
			rows = append(rows, e)
		}
	}
	args := make([]any, 0, 5*min(len(rows), 1<<eventRowBits))
	for len(rows) > 0 {
		k := min(eventRowBits, bits.Len(uint(len(rows)))-1) // the largest 1<<k ≤ len(rows)
		chunk := rows[:1<<k]
		rows = rows[1<<k:]
		args = args[:0]
		for _, e := range chunk {
			args = append(args, e.RunID, e.Seq, e.Type, e.Timestamp, string(e.Body))
		}
		if _, err := s.exec(ctx, tx, insertEventsSQL[k], args...); err != nil {
			return fmt.Errorf("sqlite: appending %d events (first: run %q seq %d): %w", len(chunk), chunk[0].RunID, chunk[0].Seq, err)
		}
	}
	return nil
}

// lastSeqs returns the highest stored seq (0 if none) of each existing run of runIDs.
func (s *Store) lastSeqs(ctx context.Context, tx *sql.Tx, runIDs []string) (map[string]int64, error) {
	ids, err := json.Marshal(runIDs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: last seqs: %w", err)
	}
	rows, err := s.query(ctx, tx, sqlLastSeqs, string(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlite: last seqs of %d runs: %w", len(runIDs), err)
	}
	out := make(map[string]int64, len(runIDs))
	for rows.Next() {
		var id string
		var last sql.NullInt64
		if err := rows.Scan(&id, &last); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("sqlite: last seqs: %w", err)
		}
		out[id] = last.Int64
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("sqlite: last seqs: %w", err)
	}
	return out, nil
}

// ListEvents implements store.Events.
func (s *Store) ListEvents(ctx context.Context, runID string, afterSeq int64) ([]store.Event, error) {
	var out []store.Event
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := needRun(ctx, tx, runID); err != nil {
			return err
		}
		var err error
		out, err = queryAll(ctx, tx, func(sc scanner) (store.Event, error) {
			var e store.Event
			var body string
			err := sc.Scan(&e.RunID, &e.Seq, &e.Type, &e.Timestamp, &body)
			e.Body = []byte(body)
			return e, err
		}, `SELECT run_id, seq, type, timestamp, event FROM events WHERE run_id = ? AND seq > ? ORDER BY seq`, runID, afterSeq)
		return err
	})
	return out, err
}

// LastSeq implements store.Events.
func (s *Store) LastSeq(ctx context.Context, runID string) (int64, error) {
	var last int64
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		last, err = lastSeq(ctx, tx, runID)
		return err
	})
	return last, err
}

// lastSeq returns the run's highest seq (0 if none) or ErrNotFound for an unknown run.
func lastSeq(ctx context.Context, tx *sql.Tx, runID string) (int64, error) {
	var last sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT (SELECT MAX(seq) FROM events WHERE run_id = r.run_id) FROM runs r WHERE r.run_id = ?`,
		runID).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("run %q: %w", runID, store.ErrNotFound)
	} else if err != nil {
		return 0, fmt.Errorf("sqlite: last seq of run %q: %w", runID, err)
	}
	return last.Int64, nil
}
