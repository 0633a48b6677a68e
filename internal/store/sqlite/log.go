package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aitexteditor/aite/internal/store"
)

// AppendMessages implements store.Messages.
func (s *Store) AppendMessages(ctx context.Context, runID string, msgs ...store.Message) error {
	if err := store.ValidateMessages(runID, msgs); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := needRun(ctx, tx, runID); err != nil {
			return err
		}
		var last int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(ord), 0) FROM messages WHERE run_id = ?`, runID).Scan(&last); err != nil {
			return fmt.Errorf("sqlite: messages of run %q: %w", runID, err)
		}
		for i, m := range msgs {
			_, err := tx.ExecContext(ctx, `INSERT INTO messages (run_id, ord, stage, task_id, msg_id, message)
				VALUES (?, ?, ?, ?, ?, ?)`, runID, last+1+i, m.Stage, m.TaskID, m.MsgID, string(m.Body))
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
		if err := needRun(ctx, tx, runID); err != nil {
			return err
		}
		var last int
		var lastStage, lastBody string
		err := tx.QueryRowContext(ctx, `SELECT ord, stage, system FROM run_systems WHERE run_id = ? ORDER BY ord DESC LIMIT 1`,
			runID).Scan(&last, &lastStage, &lastBody)
		switch {
		case err == nil && lastStage == stage && bytes.Equal([]byte(lastBody), body):
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("sqlite: system snapshots of run %q: %w", runID, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO run_systems (run_id, ord, stage, system) VALUES (?, ?, ?, ?)`,
			runID, last+1, stage, string(body))
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
	return s.write(ctx, func(tx *sql.Tx) error { return appendEvents(ctx, tx, runID, events) })
}

// AppendEventLogs implements store.Events: one IMMEDIATE transaction, so one fsync, for the
// events of every run (the server's group commit).
func (s *Store) AppendEventLogs(ctx context.Context, events ...store.Event) error {
	runIDs, byRun, err := store.EventsByRun(events)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, id := range runIDs {
			if err := appendEvents(ctx, tx, id, byRun[id]); err != nil {
				return err
			}
		}
		return nil
	})
}

// appendEvents appends events to run runID inside tx.
func appendEvents(ctx context.Context, tx *sql.Tx, runID string, events []store.Event) error {
	last, err := lastSeq(ctx, tx, runID)
	if err != nil {
		return err
	}
	if err := store.ValidateEvents(runID, last, events); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO events (run_id, seq, type, timestamp, event) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("sqlite: appending events to run %q: %w", runID, err)
	}
	defer stmt.Close()
	for _, e := range events {
		if _, err := stmt.ExecContext(ctx, runID, e.Seq, e.Type, e.Timestamp, string(e.Body)); err != nil {
			return fmt.Errorf("sqlite: appending event seq %d to run %q: %w", e.Seq, runID, err)
		}
	}
	return nil
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
