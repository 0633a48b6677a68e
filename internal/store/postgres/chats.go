package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/aitexteditor/aite/internal/store"
)

const chatColumns = `chat_id, chat_name, agent_key, document_id, created_at, updated_at,
	last_run_id, last_run_content, read_status, read_at, owner`

// CreateChat implements store.Chats.
func (s *Store) CreateChat(ctx context.Context, c store.Chat) error {
	if err := store.ValidateChat(c); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO chats (`+chatColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (chat_id) DO NOTHING`,
		c.ID, []byte(c.Name), c.AgentKey, c.DocumentID, millis(c.CreatedAt), millis(c.UpdatedAt),
		c.LastRunID, []byte(c.LastRunContent), c.ReadStatus, nullMillis(c.ReadAt), c.Owner)
	switch {
	case err != nil:
		return failed(ctx, err, "creating chat %q", c.ID)
	case tag.RowsAffected() == 0:
		return fmt.Errorf("chat %q: %w", c.ID, store.ErrExists)
	}
	return nil
}

// GetChat implements store.Chats.
func (s *Store) GetChat(ctx context.Context, id string) (store.Chat, error) {
	if err := ctx.Err(); err != nil {
		return store.Chat{}, err
	}
	c, err := scanChat(s.pool.QueryRow(ctx, `SELECT `+chatColumns+` FROM chats WHERE chat_id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Chat{}, fmt.Errorf("chat %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.Chat{}, failed(ctx, err, "reading chat %q", id)
	}
	return c, nil
}

// ListChats implements store.Chats.
func (s *Store) ListChats(ctx context.Context) ([]store.Chat, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+chatColumns+` FROM chats ORDER BY updated_at DESC, chat_id`)
	out, err := collect(rows, err, func(r pgx.Rows) (store.Chat, error) { return scanChat(r) })
	if err != nil {
		return nil, failed(ctx, err, "listing chats")
	}
	return out, nil
}

// UpdateChatAfterRun implements store.Chats.
func (s *Store) UpdateChatAfterRun(ctx context.Context, chatID, runID, content string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE chats SET last_run_id = $2, last_run_content = $3, updated_at = $4,
		read_status = 0, read_at = NULL
		WHERE chat_id = $1 AND EXISTS (SELECT 1 FROM runs WHERE run_id = $2 AND chat_id = $1)`,
		chatID, runID, []byte(content), millis(at))
	switch {
	case err != nil:
		return failed(ctx, err, "updating chat %q", chatID)
	case tag.RowsAffected() == 0:
		if _, err := s.GetChat(ctx, chatID); err != nil {
			return err
		}
		return fmt.Errorf("run %q of chat %q: %w", runID, chatID, store.ErrNotFound)
	}
	return nil
}

// MarkRead implements store.Chats.
func (s *Store) MarkRead(ctx context.Context, chatID string, at time.Time) error {
	return s.updateChat(ctx, chatID, `UPDATE chats SET read_status = 1, read_at = $2 WHERE chat_id = $1`, millis(at))
}

// SetChatBinding implements store.Chats.
func (s *Store) SetChatBinding(ctx context.Context, chatID, agentKey, documentID string, at time.Time) error {
	return s.updateChat(ctx, chatID, `UPDATE chats SET agent_key = $2, document_id = $3, updated_at = $4 WHERE chat_id = $1`,
		agentKey, documentID, millis(at))
}

// updateChat runs an UPDATE of chat chatID ($1); no row is ErrNotFound.
func (s *Store) updateChat(ctx context.Context, chatID, query string, args ...any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, query, append([]any{chatID}, args...)...)
	switch {
	case err != nil:
		return failed(ctx, err, "updating chat %q", chatID)
	case tag.RowsAffected() == 0:
		return fmt.Errorf("chat %q: %w", chatID, store.ErrNotFound)
	}
	return nil
}

const runColumns = `run_id, chat_id, request_id, agent_key, query, status, finish_reason, error_code,
	started_at, ended_at`

// CreateRun implements store.Runs; the run is owned by this node.
func (s *Store) CreateRun(ctx context.Context, r store.Run) error {
	if err := store.ValidateNewRun(r); err != nil {
		return err
	}
	return s.write(ctx, func(tx pgx.Tx) error { return s.insertRun(ctx, tx, r) })
}

// insertRun stores a new running run owned by this node.
func (s *Store) insertRun(ctx context.Context, tx pgx.Tx, r store.Run) error {
	tag, err := tx.Exec(ctx, `INSERT INTO runs (`+runColumns+`, node_id)
		VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $8, NULL, $9) ON CONFLICT (run_id) DO NOTHING`,
		r.ID, r.ChatID, []byte(r.RequestID), r.AgentKey, nullBytes(r.Query), r.FinishReason, r.ErrorCode,
		millis(r.StartedAt), s.node)
	switch {
	case pgCode(err) == codeForeignKeyViolation:
		return fmt.Errorf("chat %q: %w", r.ChatID, store.ErrNotFound)
	case err != nil:
		return failed(ctx, err, "creating run %q", r.ID)
	case tag.RowsAffected() == 0:
		return fmt.Errorf("run %q: %w", r.ID, store.ErrExists)
	}
	return nil
}

// GetRun implements store.Runs.
func (s *Store) GetRun(ctx context.Context, id string) (store.Run, error) {
	if err := ctx.Err(); err != nil {
		return store.Run{}, err
	}
	r, err := scanRun(s.pool.QueryRow(ctx, `SELECT `+runColumns+` FROM runs WHERE run_id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Run{}, fmt.Errorf("run %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.Run{}, failed(ctx, err, "reading run %q", id)
	}
	return r, nil
}

// ListRuns implements store.Runs.
func (s *Store) ListRuns(ctx context.Context, chatID string) ([]store.Run, error) {
	if err := s.needChat(ctx, chatID); err != nil {
		return nil, err
	}
	return s.runs(ctx, `SELECT `+runColumns+` FROM runs WHERE chat_id = $1 ORDER BY run_id`, chatID)
}

// RunningRuns implements store.Runs.
func (s *Store) RunningRuns(ctx context.Context) ([]store.Run, error) {
	return s.runs(ctx, `SELECT `+runColumns+` FROM runs WHERE status = 'running' ORDER BY run_id`)
}

// runs lists the runs a query selects.
func (s *Store) runs(ctx context.Context, query string, args ...any) ([]store.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, query, args...)
	out, err := collect(rows, err, func(r pgx.Rows) (store.Run, error) { return scanRun(r) })
	if err != nil {
		return nil, failed(ctx, err, "listing runs")
	}
	return out, nil
}

// FinishRun implements store.Runs; a run owned by another node is
// store.ErrNotOwner.
func (s *Store) FinishRun(ctx context.Context, runID string, status store.RunStatus, finishReason, errorCode string, at time.Time) error {
	if err := store.ValidateFinish(runID, status); err != nil {
		return err
	}
	return s.write(ctx, func(tx pgx.Tx) error {
		var current, node string
		err := tx.QueryRow(ctx, `SELECT status, node_id FROM runs WHERE run_id = $1 FOR NO KEY UPDATE`, runID).Scan(&current, &node)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("run %q: %w", runID, store.ErrNotFound)
		case err != nil:
			return failed(ctx, err, "reading run %q", runID)
		case current != string(store.RunRunning):
			return fmt.Errorf("run %q already ended (%s): %w", runID, current, store.ErrConflict)
		}
		if err := s.owns(runID, node); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE runs SET status = $2, finish_reason = $3, error_code = $4, ended_at = $5
			WHERE run_id = $1`, runID, string(status), finishReason, errorCode, millis(at))
		if err != nil {
			return failed(ctx, err, "finishing run %q", runID)
		}
		return nil
	})
}

// owns returns store.ErrNotOwner unless a run owned by node may be written
// by this node: its own, or one without owner.
func (s *Store) owns(runID, node string) error {
	if node != "" && node != s.node {
		return fmt.Errorf("run %q is owned by node %q, not %q: %w", runID, node, s.node, store.ErrNotOwner)
	}
	return nil
}

// needChat returns store.ErrNotFound unless chat id exists.
func (s *Store) needChat(ctx context.Context, id string) error {
	return s.need(ctx, `SELECT 1 FROM chats WHERE chat_id = $1`, "chat", id)
}

// needRun returns store.ErrNotFound unless run id exists.
func (s *Store) needRun(ctx context.Context, id string) error {
	return s.need(ctx, `SELECT 1 FROM runs WHERE run_id = $1`, "run", id)
}

// need returns store.ErrNotFound (with what and id) unless query finds a row
// for id. Nothing is ever deleted, so a row found stays there.
func (s *Store) need(ctx context.Context, query, what, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var one int
	switch err := s.pool.QueryRow(ctx, query, id).Scan(&one); {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("%s %q: %w", what, id, store.ErrNotFound)
	case err != nil:
		return failed(ctx, err, "looking up %s %q", what, id)
	}
	return nil
}

func scanChat(row pgx.Row) (store.Chat, error) {
	var c store.Chat
	var name, content []byte
	var created, updated int64
	var readAt *int64
	err := row.Scan(&c.ID, &name, &c.AgentKey, &c.DocumentID, &created, &updated,
		&c.LastRunID, &content, &c.ReadStatus, &readAt, &c.Owner)
	c.Name, c.LastRunContent = string(name), string(content)
	c.CreatedAt, c.UpdatedAt, c.ReadAt = fromMillis(created), fromMillis(updated), fromNullMillis(readAt)
	return c, err
}

func scanRun(row pgx.Row) (store.Run, error) {
	var r store.Run
	var request, query []byte
	var status string
	var started int64
	var ended *int64
	err := row.Scan(&r.ID, &r.ChatID, &request, &r.AgentKey, &query, &status, &r.FinishReason, &r.ErrorCode,
		&started, &ended)
	r.RequestID, r.Query, r.Status = string(request), nullBytes(query), store.RunStatus(status)
	r.StartedAt, r.EndedAt = fromMillis(started), fromNullMillis(ended)
	return r, err
}
