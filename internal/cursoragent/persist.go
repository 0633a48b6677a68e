package cursoragent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aitexteditor/aite/internal/store"
)

// Persistent keeps task states in the platform's store (SQLite by
// default), as JSON under the task ID, so a task survives the process and
// other agents can read its evidence.
type Persistent struct {
	Tasks store.Tasks
	// Now stamps the saves (time.Now when nil).
	Now func() time.Time
}

// SaveTask stores the state.
func (p Persistent) SaveTask(ctx context.Context, st *TaskState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	return p.Tasks.SaveTask(ctx, st.Task.ID, b, now())
}

// LoadTask reads a stored state; an unknown ID is ErrNoTask.
func (p Persistent) LoadTask(ctx context.Context, id string) (*TaskState, error) {
	rec, err := p.Tasks.LoadTask(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNoTask, id)
	}
	if err != nil {
		return nil, err
	}
	return decodeTask(id, rec.Body)
}

// decodeTask reads a stored task state.
func decodeTask(id string, b []byte) (*TaskState, error) {
	var st TaskState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("task %q: stored state is damaged: %w", id, err)
	}
	return &st, nil
}
