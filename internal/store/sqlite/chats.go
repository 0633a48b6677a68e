package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/aitexteditor/aite/internal/store"
)

const chatColumns = `chat_id, chat_name, agent_key, document_id, created_at, updated_at,
	last_run_id, last_run_content, read_status, read_at, owner`

// CreateChat implements store.Chats.
func (s *Store) CreateChat(ctx context.Context, c store.Chat) error {
	if err := store.ValidateChat(c); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := s.writerNeedChat(ctx, tx, c.ID); err == nil {
			return fmt.Errorf("chat %q: %w", c.ID, store.ErrExists)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		_, err := s.exec(ctx, tx, sqlInsertChat,
			c.ID, c.Name, c.AgentKey, c.DocumentID, millis(c.CreatedAt), millis(c.UpdatedAt),
			c.LastRunID, c.LastRunContent, c.ReadStatus, nullMillis(c.ReadAt), c.Owner)
		if err != nil {
			return fmt.Errorf("sqlite: creating chat %q: %w", c.ID, err)
		}
		return nil
	})
}

// GetChat implements store.Chats.
func (s *Store) GetChat(ctx context.Context, id string) (store.Chat, error) {
	c, err := scanChat(s.r.QueryRowContext(ctx, `SELECT `+chatColumns+` FROM chats WHERE chat_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Chat{}, fmt.Errorf("chat %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.Chat{}, fmt.Errorf("sqlite: reading chat %q: %w", id, err)
	}
	return c, nil
}

// ListChats implements store.Chats.
func (s *Store) ListChats(ctx context.Context) ([]store.Chat, error) {
	return queryAll(ctx, s.r, scanChat, `SELECT `+chatColumns+` FROM chats ORDER BY updated_at DESC, chat_id`)
}

// UpdateChatAfterRun implements store.Chats.
func (s *Store) UpdateChatAfterRun(ctx context.Context, chatID, runID, content string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := s.writerNeedChat(ctx, tx, chatID); err != nil {
			return err
		}
		var one int
		err := s.queryRow(ctx, tx, sqlRunOfChat, runID, chatID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("run %q of chat %q: %w", runID, chatID, store.ErrNotFound)
		} else if err != nil {
			return fmt.Errorf("sqlite: looking up run %q: %w", runID, err)
		}
		_, err = s.exec(ctx, tx, sqlChatAfter, runID, content, millis(at), chatID)
		if err != nil {
			return fmt.Errorf("sqlite: updating chat %q: %w", chatID, err)
		}
		return nil
	})
}

// MarkRead implements store.Chats.
func (s *Store) MarkRead(ctx context.Context, chatID string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE chats SET read_status = 1, read_at = ? WHERE chat_id = ?`, millis(at), chatID)
		return affected(res, err, "chat", chatID)
	})
}

// SetChatBinding implements store.Chats.
func (s *Store) SetChatBinding(ctx context.Context, chatID, agentKey, documentID string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE chats SET agent_key = ?, document_id = ?, updated_at = ? WHERE chat_id = ?`,
			agentKey, documentID, millis(at), chatID)
		return affected(res, err, "chat", chatID)
	})
}

const runColumns = `run_id, chat_id, request_id, agent_key, query, status, finish_reason, error_code,
	started_at, ended_at`

// CreateRun implements store.Runs.
func (s *Store) CreateRun(ctx context.Context, r store.Run) error {
	if err := store.ValidateNewRun(r); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := s.writerNeedChat(ctx, tx, r.ChatID); err != nil {
			return err
		}
		if err := s.writerNeedRun(ctx, tx, r.ID); err == nil {
			return fmt.Errorf("run %q: %w", r.ID, store.ErrExists)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		_, err := s.exec(ctx, tx, sqlInsertRun,
			r.ID, r.ChatID, r.RequestID, r.AgentKey, nullText(r.Query), string(store.RunRunning),
			r.FinishReason, r.ErrorCode, millis(r.StartedAt))
		if err != nil {
			return fmt.Errorf("sqlite: creating run %q: %w", r.ID, err)
		}
		return nil
	})
}

// GetRun implements store.Runs.
func (s *Store) GetRun(ctx context.Context, id string) (store.Run, error) {
	r, err := scanRun(s.r.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE run_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Run{}, fmt.Errorf("run %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.Run{}, fmt.Errorf("sqlite: reading run %q: %w", id, err)
	}
	return r, nil
}

// ListRuns implements store.Runs.
func (s *Store) ListRuns(ctx context.Context, chatID string) ([]store.Run, error) {
	var out []store.Run
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := needChat(ctx, tx, chatID); err != nil {
			return err
		}
		var err error
		out, err = queryAll(ctx, tx, scanRun, `SELECT `+runColumns+` FROM runs WHERE chat_id = ? ORDER BY run_id`, chatID)
		return err
	})
	return out, err
}

// FinishRun implements store.Runs.
func (s *Store) FinishRun(ctx context.Context, runID string, status store.RunStatus, finishReason, errorCode string, at time.Time) error {
	if err := store.ValidateFinish(runID, status); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var current string
		err := s.queryRow(ctx, tx, sqlRunStatus, runID).Scan(&current)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("run %q: %w", runID, store.ErrNotFound)
		case err != nil:
			return fmt.Errorf("sqlite: reading run %q: %w", runID, err)
		case current != string(store.RunRunning):
			return fmt.Errorf("run %q already ended (%s): %w", runID, current, store.ErrConflict)
		}
		_, err = s.exec(ctx, tx, sqlFinishRun, string(status), finishReason, errorCode, millis(at), runID)
		if err != nil {
			return fmt.Errorf("sqlite: finishing run %q: %w", runID, err)
		}
		return nil
	})
}

// RunningRuns implements store.Runs.
func (s *Store) RunningRuns(ctx context.Context) ([]store.Run, error) {
	return queryAll(ctx, s.r, scanRun, `SELECT `+runColumns+` FROM runs WHERE status = 'running' ORDER BY run_id`)
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanChat(sc scanner) (store.Chat, error) {
	var c store.Chat
	var created, updated int64
	var readAt sql.NullInt64
	err := sc.Scan(&c.ID, &c.Name, &c.AgentKey, &c.DocumentID, &created, &updated,
		&c.LastRunID, &c.LastRunContent, &c.ReadStatus, &readAt, &c.Owner)
	c.CreatedAt, c.UpdatedAt, c.ReadAt = fromMillis(created), fromMillis(updated), fromNullMillis(readAt)
	return c, err
}

func scanRun(sc scanner) (store.Run, error) {
	var r store.Run
	var query sql.NullString
	var status string
	var started int64
	var ended sql.NullInt64
	err := sc.Scan(&r.ID, &r.ChatID, &r.RequestID, &r.AgentKey, &query, &status, &r.FinishReason, &r.ErrorCode,
		&started, &ended)
	r.Query, r.Status, r.StartedAt, r.EndedAt = fromNullText(query), store.RunStatus(status), fromMillis(started), fromNullMillis(ended)
	return r, err
}

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryAll runs a query and scans every row; the result is never nil.
func queryAll[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: query: %w", err)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: reading a row: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: query: %w", err)
	}
	return out, nil
}

// affected turns an UPDATE result into ErrNotFound when it touched no row.
func affected(res sql.Result, err error, what, id string) error {
	if err != nil {
		return fmt.Errorf("sqlite: updating %s %q: %w", what, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: updating %s %q: %w", what, id, err)
	}
	if n == 0 {
		return fmt.Errorf("%s %q: %w", what, id, store.ErrNotFound)
	}
	return nil
}
