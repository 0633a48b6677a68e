package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aitexteditor/aite/internal/store"
)

// CreateChat implements store.Chats.
func (s *Store) CreateChat(ctx context.Context, c store.Chat) error {
	if err := store.ValidateChat(c); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, ok := s.chats[c.ID]; ok {
		return fmt.Errorf("chat %q: %w", c.ID, store.ErrExists)
	}
	c.CreatedAt, c.UpdatedAt, c.ReadAt = ms(c.CreatedAt), ms(c.UpdatedAt), store.StoredTimePtr(c.ReadAt)
	s.chats[c.ID] = c
	return nil
}

// GetChat implements store.Chats.
func (s *Store) GetChat(ctx context.Context, id string) (store.Chat, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.needChat(ctx, id); err != nil {
		return store.Chat{}, err
	}
	return copyChat(s.chats[id]), nil
}

// ListChats implements store.Chats.
func (s *Store) ListChats(ctx context.Context) ([]store.Chat, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]store.Chat, 0, len(s.chats))
	for _, c := range s.chats {
		out = append(out, copyChat(c))
	}
	slices.SortFunc(out, func(a, b store.Chat) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// UpdateChatAfterRun implements store.Chats.
func (s *Store) UpdateChatAfterRun(ctx context.Context, chatID, runID, content string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needChat(ctx, chatID); err != nil {
		return err
	}
	if r, ok := s.runs[runID]; !ok || r.ChatID != chatID {
		return fmt.Errorf("run %q of chat %q: %w", runID, chatID, store.ErrNotFound)
	}
	c := s.chats[chatID]
	c.LastRunID, c.LastRunContent, c.UpdatedAt = runID, content, ms(at)
	c.ReadStatus, c.ReadAt = 0, nil
	s.chats[chatID] = c
	return nil
}

// MarkRead implements store.Chats.
func (s *Store) MarkRead(ctx context.Context, chatID string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needChat(ctx, chatID); err != nil {
		return err
	}
	c := s.chats[chatID]
	c.ReadStatus, c.ReadAt = 1, store.StoredTimePtr(&at)
	s.chats[chatID] = c
	return nil
}

// SetChatBinding implements store.Chats.
func (s *Store) SetChatBinding(ctx context.Context, chatID, agentKey, documentID string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needChat(ctx, chatID); err != nil {
		return err
	}
	c := s.chats[chatID]
	c.AgentKey, c.DocumentID, c.UpdatedAt = agentKey, documentID, ms(at)
	s.chats[chatID] = c
	return nil
}

// CreateRun implements store.Runs.
func (s *Store) CreateRun(ctx context.Context, r store.Run) error {
	if err := store.ValidateNewRun(r); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needChat(ctx, r.ChatID); err != nil {
		return err
	}
	if _, ok := s.runs[r.ID]; ok {
		return fmt.Errorf("run %q: %w", r.ID, store.ErrExists)
	}
	r.Status, r.Query, r.StartedAt = store.RunRunning, clone(r.Query), ms(r.StartedAt)
	s.runs[r.ID] = r
	ids := s.chatRuns[r.ChatID]
	i, _ := slices.BinarySearch(ids, r.ID)
	s.chatRuns[r.ChatID] = slices.Insert(ids, i, r.ID)
	return nil
}

// GetRun implements store.Runs.
func (s *Store) GetRun(ctx context.Context, id string) (store.Run, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.needRun(ctx, id); err != nil {
		return store.Run{}, err
	}
	return copyRun(s.runs[id]), nil
}

// ListRuns implements store.Runs.
func (s *Store) ListRuns(ctx context.Context, chatID string) ([]store.Run, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.needChat(ctx, chatID); err != nil {
		return nil, err
	}
	out := make([]store.Run, 0, len(s.chatRuns[chatID]))
	for _, id := range s.chatRuns[chatID] {
		out = append(out, copyRun(s.runs[id]))
	}
	return out, nil
}

// FinishRun implements store.Runs.
func (s *Store) FinishRun(ctx context.Context, runID string, status store.RunStatus, finishReason, errorCode string, at time.Time) error {
	if err := store.ValidateFinish(runID, status); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needRun(ctx, runID); err != nil {
		return err
	}
	r := s.runs[runID]
	if r.Status != store.RunRunning {
		return fmt.Errorf("run %q already ended (%s): %w", runID, r.Status, store.ErrConflict)
	}
	r.Status, r.FinishReason, r.ErrorCode, r.EndedAt = status, finishReason, errorCode, store.StoredTimePtr(&at)
	s.runs[runID] = r
	return nil
}

// RunningRuns implements store.Runs.
func (s *Store) RunningRuns(ctx context.Context) ([]store.Run, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []store.Run{}
	for _, r := range s.runs {
		if r.Status == store.RunRunning {
			out = append(out, copyRun(r))
		}
	}
	slices.SortFunc(out, func(a, b store.Run) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func copyChat(c store.Chat) store.Chat {
	c.ReadAt = store.StoredTimePtr(c.ReadAt)
	return c
}

func copyRun(r store.Run) store.Run {
	r.Query, r.EndedAt = clone(r.Query), store.StoredTimePtr(r.EndedAt)
	return r
}
