package cursoragent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/aitexteditor/aite/internal/atomicfile"
	"github.com/aitexteditor/aite/internal/editor"
)

// FileStore keeps task states as JSON files in the "tasks" directory of a
// book file's state directory (editor.StateDir), so a task stopped by its
// step limit can be resumed by a later process. The directory is made under
// the rule of every state file: never in a folder marked read-only.
type FileStore struct {
	Book string // the book file's path
}

// TasksDir is the directory of the task states of the book file book.
func TasksDir(book string) string { return filepath.Join(editor.StateDir(book), "tasks") }

var taskIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

func (f FileStore) path(id string) (string, error) {
	if !taskIDPattern().MatchString(id) {
		return "", fmt.Errorf("%w: %q is not a task ID", ErrNoTask, id)
	}
	return filepath.Join(TasksDir(f.Book), id+".json"), nil
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
	if _, err := editor.MakeStateDir(f.Book, "tasks"); err != nil {
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
