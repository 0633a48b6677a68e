package cursoragent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/aitexteditor/aite/internal/atomicfile"
)

// FileStore keeps task states as JSON files in a directory (the command
// line keeps them in the book's state directory), so a task stopped by its
// step limit can be resumed by a later process.
type FileStore struct {
	Dir string
}

var taskIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (f FileStore) path(id string) (string, error) {
	if !taskIDPattern.MatchString(id) {
		return "", fmt.Errorf("%w: %q is not a task ID", ErrNoTask, id)
	}
	return filepath.Join(f.Dir, id+".json"), nil
}

// SaveTask writes the state atomically.
func (f FileStore) SaveTask(_ context.Context, st *TaskState) error {
	p, err := f.path(st.Task.ID)
	if err != nil {
		return err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(p, b, atomicfile.Options{Perm: 0o644})
}

// LoadTask reads a state; an unknown ID is ErrNoTask.
func (f FileStore) LoadTask(_ context.Context, id string) (*TaskState, error) {
	p, err := f.path(id)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %q", ErrNoTask, id)
	}
	if err != nil {
		return nil, err
	}
	return decodeTask(id, b)
}
