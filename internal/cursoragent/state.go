package cursoragent

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// TaskState is the runtime-held memory of a task, persisted after every
// batch so a task can resume and other agents can read its evidence.
type TaskState struct {
	Task      Task       `json:"task"`
	Found     []Evidence `json:"found"` // in walking order
	NextAfter string     `json:"nextAfterPointer,omitempty"`
	Steps     int        `json:"steps"`
	Notes     []string   `json:"notes,omitempty"` // progress notes, one per batch that gave one
	Seen      []string   `json:"seenTail,omitempty"`
	Skipped   []string   `json:"skipped,omitempty"`
	Unjudged  []Range    `json:"unjudged,omitempty"`
	Dropped   int        `json:"dropped"`
	Complete  bool       `json:"cursorComplete"`
	StoppedBy string     `json:"stoppedBy,omitempty"`
	Usage     Usage      `json:"usage"`
	Warnings  []string   `json:"warnings,omitempty"`
}

// ErrNoTask is returned for an unknown task ID.
var ErrNoTask = errors.New("no such cursor-agent task")

// Store persists task states. The platform's storage implements it; MemStore
// is the in-process one.
type Store interface {
	SaveTask(ctx context.Context, st *TaskState) error
	LoadTask(ctx context.Context, id string) (*TaskState, error)
}

// MemStore keeps task states in memory (deep copies).
type MemStore struct {
	mu sync.Mutex
	m  map[string]TaskState
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore { return &MemStore{m: map[string]TaskState{}} }

// SaveTask stores a copy of the state.
func (s *MemStore) SaveTask(_ context.Context, st *TaskState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[st.Task.ID] = clone(st)
	return nil
}

// LoadTask returns a copy of a stored state.
func (s *MemStore) LoadTask(_ context.Context, id string) (*TaskState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoTask, id)
	}
	c := clone(&st)
	return &c, nil
}

func clone(st *TaskState) TaskState {
	c := *st
	c.Found = append([]Evidence(nil), st.Found...)
	c.Notes = append([]string(nil), st.Notes...)
	c.Seen = append([]string(nil), st.Seen...)
	c.Skipped = append([]string(nil), st.Skipped...)
	c.Unjudged = append([]Range(nil), st.Unjudged...)
	c.Warnings = append([]string(nil), st.Warnings...)
	return c
}

func (st *TaskState) has(id int) bool {
	for _, e := range st.Found {
		if e.Pointer.ID == id {
			return true
		}
	}
	return false
}

// judgedBefore returns how many of the found items (in walking order) no
// unjudged range precedes: only those can be picked as first or n-th.
func (st *TaskState) judgedBefore() int {
	n := len(st.Found)
	for _, r := range st.Unjudged {
		n = min(n, r.FoundBefore)
	}
	return n
}

func (st *TaskState) note() string {
	for i := len(st.Notes) - 1; i >= 0; i-- {
		if st.Notes[i] != "" {
			return st.Notes[i]
		}
	}
	return ""
}
