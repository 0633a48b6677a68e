package cursor

import (
	"testing"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/stretchr/testify/require"
)

func TestTargetSets(t *testing.T) {
	d := markdown.Parse([]byte(sample))
	r := NewRegistry(d)
	rep, err := r.CreateTargets(d, "", []string{"7", "1.1.p1", "4:1.1.p1", "99", "zz", "5:9.p9"})
	require.NoError(t, err)
	require.Equal(t, "targets_0", rep.Name)
	require.Equal(t, 3, rep.Count)
	require.Len(t, rep.InvalidPointers, 2)
	require.Equal(t, "99", rep.InvalidPointers[0].Pointer)
	require.Contains(t, rep.InvalidPointers[0].Error, "no item has the ID 99")
	require.Len(t, rep.Warnings, 2) // a duplicate, a stale label
	require.Contains(t, rep.Warnings[0], "already in the set")
	require.Contains(t, rep.Warnings[1], "stale label")

	v, err := r.GetTargets(d, "targets_0")
	require.NoError(t, err)
	require.Equal(t, []int{4, 5, 7}, []int{v.Items[0].Pointer.ID, v.Items[1].Pointer.ID, v.Items[2].Pointer.ID}, "document order")
	require.Equal(t, "Профессор Звездочкин приехал.", v.Items[0].Excerpt)

	// Stored by ID: an insert before them changes labels, not membership.
	_, err = d.InsertBefore("4", "Новый абзац.")
	require.NoError(t, err)
	_, err = d.Delete("5")
	require.NoError(t, err)
	v, err = r.GetTargets(d, "targets_0")
	require.NoError(t, err)
	require.Len(t, v.Items, 2)
	require.Equal(t, 1, v.Deleted)
	require.Equal(t, "1.1.p2", v.Items[0].Pointer.Label)

	rep, err = r.AddTargets(d, "targets_0", []string{"9", "4"})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Added)
	_, err = r.AddTargets(d, "nope", []string{"1"})
	require.ErrorIs(t, err, ErrTargets)
	rep, err = r.CreateTargets(d, "targets_0", []string{"1"})
	require.NoError(t, err)
	require.Contains(t, rep.Warnings[0], "replaced")
	require.Equal(t, []TargetSummary{{Name: "targets_0", Count: 1}}, r.ListTargets())
	require.NoError(t, r.DeleteTargets("targets_0"))
	require.ErrorIs(t, r.DeleteTargets("targets_0"), ErrTargets)
	require.Empty(t, r.ListTargets())
}

func TestExcerpt(t *testing.T) {
	require.Equal(t, "a b", Excerpt("a\n  b", 10))
	require.Equal(t, "один два…", Excerpt("один два три четыре", 12))
}
