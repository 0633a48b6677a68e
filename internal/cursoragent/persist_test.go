package cursoragent

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/aitexteditor/aite/internal/store/sqlite"
	"github.com/stretchr/testify/require"
)

// TestResumeFromSQLite stops a task at its step limit, reopens the
// database as a new process would, and resumes the task from there.
func TestResumeFromSQLite(t *testing.T) {
	s, d, ids := setup(t, "Звёздочкин", false)
	path := filepath.Join(t.TempDir(), "aite.db")
	db, err := sqlite.Open(path)
	require.NoError(t, err)
	o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
	a, _ := newAgent(s, o)
	a.Store = Persistent{Tasks: db}
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "g", Mode: FirstMatch, Cursor: fullScan(3), Limits: Limits{MaxSteps: 1}})
	require.NoError(t, err)
	require.Equal(t, "step_limit", res.StoppedBy)
	require.NoError(t, db.Close())

	db, err = sqlite.Open(path)
	require.NoError(t, err)
	defer db.Close()
	b, _ := newAgent(s, o)
	b.Store = Persistent{Tasks: db}
	for res.StoppedBy == "step_limit" {
		res, err = b.Resume(context.Background(), "t1")
		require.NoError(t, err)
	}
	require.True(t, res.Success)
	require.Equal(t, d.ByID(ids[0]).Pointer().String(), res.Pointer)
	_, err = b.Resume(context.Background(), "missing")
	require.ErrorIs(t, err, ErrNoTask)
}

func TestFileStore(t *testing.T) {
	fs := FileStore{Book: filepath.Join(t.TempDir(), "book.md")}
	st := &TaskState{Task: Task{ID: "abc123", Goal: "g"}, Steps: 3, Unjudged: []Range{{First: "1:p1", Last: "2:p2", Items: 2}}}
	require.NoError(t, fs.SaveTask(context.Background(), st))
	got, err := fs.LoadTask(context.Background(), "abc123")
	require.NoError(t, err)
	require.Equal(t, st.Unjudged, got.Unjudged)
	require.Equal(t, 3, got.Steps)
	for _, bad := range []string{"nope", "../x", ""} {
		_, err := fs.LoadTask(context.Background(), bad)
		require.ErrorIs(t, err, ErrNoTask, bad)
	}
}

// TestFileStoreLeavesReadOnlyFoldersAlone: a task state is never written
// into a folder marked read-only, even by root, who could.
func TestFileStoreLeavesReadOnlyFoldersAlone(t *testing.T) {
	dir := t.TempDir()
	fs := FileStore{Book: filepath.Join(dir, "book.md")}
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	require.Error(t, fs.SaveTask(context.Background(), &TaskState{Task: Task{ID: "abc123"}}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing is created in the read-only folder")
}
