// Package memory is an in-process store.Store: the same semantics as the SQLite backend
// (it passes the same conformance suite), nothing persisted. Records are deep-copied on the way
// in and out, so callers never share memory with the store. It is meant for tests of other
// packages.
package memory

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/store"
)

// Store keeps every record in maps guarded by one lock. The zero value is not usable; call New.
type Store struct {
	mu       sync.RWMutex
	chats    map[string]store.Chat
	runs     map[string]store.Run
	chatRuns map[string][]string // run ids of each chat, ascending
	messages map[string][]store.Message
	systems  map[string][]store.SystemSnapshot
	events   map[string][]store.Event
	plans    map[string]store.Plan
	docs     map[string]store.Document // without text and item IDs: those of the snapshot
	snaps    map[string]snapshot
	edits    map[string][]store.DocumentEdit
	tasks    map[string]store.TaskState
	data     map[[2]string]store.DocumentDatum // by document id and name
}

var _ store.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{
		chats:    map[string]store.Chat{},
		runs:     map[string]store.Run{},
		chatRuns: map[string][]string{},
		messages: map[string][]store.Message{},
		systems:  map[string][]store.SystemSnapshot{},
		events:   map[string][]store.Event{},
		plans:    map[string]store.Plan{},
		docs:     map[string]store.Document{},
		snaps:    map[string]snapshot{},
		edits:    map[string][]store.DocumentEdit{},
		tasks:    map[string]store.TaskState{},
		data:     map[[2]string]store.DocumentDatum{},
	}
}

// Close does nothing; the store stays usable.
func (s *Store) Close() error { return nil }

// AppendMessages implements store.Messages.
func (s *Store) AppendMessages(ctx context.Context, runID string, msgs ...store.Message) error {
	if err := store.ValidateMessages(runID, msgs); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needRun(ctx, runID); err != nil {
		return err
	}
	next := len(s.messages[runID]) + 1
	for i, m := range msgs {
		m.RunID, m.Ord, m.Body = runID, next+i, clone(m.Body)
		s.messages[runID] = append(s.messages[runID], m)
	}
	return nil
}

// ListMessages implements store.Messages.
func (s *Store) ListMessages(ctx context.Context, runID string) ([]store.Message, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.needRun(ctx, runID); err != nil {
		return nil, err
	}
	return copyMessages(nil, s.messages[runID]), nil
}

// RecentMessages implements store.Messages.
func (s *Store) RecentMessages(ctx context.Context, chatID string, k int) ([]store.Message, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.needChat(ctx, chatID); err != nil {
		return nil, err
	}
	out := []store.Message{}
	if k <= 0 {
		return out, nil
	}
	ids := s.chatRuns[chatID]
	for _, id := range ids[max(0, len(ids)-k):] {
		out = copyMessages(out, s.messages[id])
	}
	return out, nil
}

// AppendSystem implements store.Systems.
func (s *Store) AppendSystem(ctx context.Context, runID, stage string, body json.RawMessage) (bool, error) {
	if err := store.ValidateSystem(runID, body); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needRun(ctx, runID); err != nil {
		return false, err
	}
	list := s.systems[runID]
	if n := len(list); n > 0 && list[n-1].Stage == stage && bytes.Equal(list[n-1].Body, body) {
		return false, nil
	}
	s.systems[runID] = append(list, store.SystemSnapshot{RunID: runID, Ord: len(list) + 1, Stage: stage, Body: clone(body)})
	return true, nil
}

// ListSystems implements store.Systems.
func (s *Store) ListSystems(ctx context.Context, runID string) ([]store.SystemSnapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.needRun(ctx, runID); err != nil {
		return nil, err
	}
	out := make([]store.SystemSnapshot, 0, len(s.systems[runID]))
	for _, snap := range s.systems[runID] {
		snap.Body = clone(snap.Body)
		out = append(out, snap)
	}
	return out, nil
}

// AppendEvents implements store.Events.
func (s *Store) AppendEvents(ctx context.Context, runID string, events ...store.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needRun(ctx, runID); err != nil {
		return err
	}
	if err := store.ValidateEvents(runID, s.lastSeq(runID), events); err != nil {
		return err
	}
	for _, e := range events {
		e.RunID, e.Body = runID, clone(e.Body)
		s.events[runID] = append(s.events[runID], e)
	}
	return nil
}

// AppendEventLogs implements store.Events: every run's events are checked before any is
// stored.
func (s *Store) AppendEventLogs(ctx context.Context, events ...store.Event) error {
	runIDs, byRun, err := store.EventsByRun(events)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range runIDs {
		if err := s.needRun(ctx, id); err != nil {
			return err
		}
		if err := store.ValidateEvents(id, s.lastSeq(id), byRun[id]); err != nil {
			return err
		}
	}
	for _, id := range runIDs {
		for _, e := range byRun[id] {
			e.Body = clone(e.Body)
			s.events[id] = append(s.events[id], e)
		}
	}
	return nil
}

// ListEvents implements store.Events.
func (s *Store) ListEvents(ctx context.Context, runID string, afterSeq int64) ([]store.Event, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.needRun(ctx, runID); err != nil {
		return nil, err
	}
	list := s.events[runID]
	i, _ := slices.BinarySearchFunc(list, afterSeq+1, func(e store.Event, seq int64) int { return cmp.Compare(e.Seq, seq) })
	out := make([]store.Event, 0, len(list)-i)
	for _, e := range list[i:] {
		e.Body = clone(e.Body)
		out = append(out, e)
	}
	return out, nil
}

// LastSeq implements store.Events.
func (s *Store) LastSeq(ctx context.Context, runID string) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.needRun(ctx, runID); err != nil {
		return 0, err
	}
	return s.lastSeq(runID), nil
}

func (s *Store) lastSeq(runID string) int64 {
	if list := s.events[runID]; len(list) > 0 {
		return list[len(list)-1].Seq
	}
	return 0
}

// needChat returns ctx's error, or ErrNotFound unless the chat exists; the lock is held.
func (s *Store) needChat(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, ok := s.chats[id]; !ok {
		return fmt.Errorf("chat %q: %w", id, store.ErrNotFound)
	}
	return nil
}

// needRun returns ctx's error, or ErrNotFound unless the run exists; the lock is held.
func (s *Store) needRun(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, ok := s.runs[id]; !ok {
		return fmt.Errorf("run %q: %w", id, store.ErrNotFound)
	}
	return nil
}

func copyMessages(dst, src []store.Message) []store.Message {
	if dst == nil {
		dst = make([]store.Message, 0, len(src))
	}
	for _, m := range src {
		m.Body = clone(m.Body)
		dst = append(dst, m)
	}
	return dst
}

// clone copies a JSON body; nil and empty stay nil.
func clone(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}

// ms is store.StoredTime, shortened.
func ms(t time.Time) time.Time { return store.StoredTime(t) }
