package editor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/document"
)

// Saved target sets: a named selection of a book file's items (for example
// what `aite navigate --mode collect --save NAME` collected), kept by item
// ID in the book's state directory so later commands can use it; the IDs
// are the recorded ones, so a set names the same items after edits, and an
// item rewritten by another program simply leaves the set.

// TargetSetsPath is the file that holds a book file's saved target sets.
func TargetSetsPath(book string) string { return filepath.Join(StateDir(book), "targets.json") }

// SavedSet is one saved target set.
type SavedSet struct {
	IDs   []int     `json:"-"`
	Runs  string    `json:"ids"`
	Count int       `json:"count"`
	Saved time.Time `json:"saved"`
	Note  string    `json:"note,omitempty"`
}

type savedSets struct {
	Format  string              `json:"format"`
	Version int                 `json:"version"`
	Sets    map[string]SavedSet `json:"sets"`
}

const targetSetsFormat = "aite-target-sets"

// SavedTargetSets returns a book file's saved target sets by name; a
// missing file is none, a damaged one an error.
func SavedTargetSets(book string) (map[string]SavedSet, error) {
	b, err := os.ReadFile(TargetSetsPath(book))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]SavedSet{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIO, err)
	}
	var f savedSets
	if err := json.Unmarshal(b, &f); err != nil || f.Format != targetSetsFormat {
		return nil, fmt.Errorf("%w: the saved target sets %s are damaged (delete the file to start over)", ErrIO, TargetSetsPath(book))
	}
	for name, s := range f.Sets {
		ids, err := document.ParseIDRuns(s.Runs, s.Count)
		if err != nil {
			return nil, fmt.Errorf("%w: saved target set %q: %w", ErrIO, name, err)
		}
		s.IDs = ids
		f.Sets[name] = s
	}
	return f.Sets, nil
}

// SaveTargetSet saves the session target set `set` of the book `id` (a
// book file) under `name` in the book's state directory, replacing a saved
// set of that name; note describes it (e.g. the task that collected it).
// It returns the number of items saved.
func (s *Session) SaveTargetSet(id, set, name, note string) (int, error) {
	if name == "" {
		return 0, fmt.Errorf("%w: a saved target set needs a name", document.ErrUnsupported)
	}
	var ids []int
	var path string
	err := s.with(id, func(b *book) error {
		v, err := b.reg.GetTargets(b.doc, set)
		if err != nil {
			return err
		}
		for _, it := range v.Items {
			ids = append(ids, it.Pointer.ID)
		}
		path = b.path
		return nil
	})
	if err != nil {
		return 0, err
	}
	if path == "" {
		return 0, fmt.Errorf("%w: book %q has no file to save a target set beside", ErrIO, id)
	}
	sets, err := SavedTargetSets(path)
	if err != nil {
		sets = map[string]SavedSet{} // a damaged file is replaced
	}
	sets[name] = SavedSet{Runs: document.FormatIDRuns(ids), Count: len(ids), Saved: time.Now().UTC(), Note: note}
	b, err := json.MarshalIndent(savedSets{Format: targetSetsFormat, Version: 1, Sets: sets}, "", " ")
	if err != nil {
		return 0, err
	}
	if err := bookcache.WriteFile(TargetSetsPath(path), append(b, '\n')); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrIO, err)
	}
	return len(ids), nil
}

// SavedSetNames returns the names of saved sets in order.
func SavedSetNames(sets map[string]SavedSet) []string {
	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
