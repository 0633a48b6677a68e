package cursoragent

import (
	"context"
	"math/rand"
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
