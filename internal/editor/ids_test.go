package editor

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
	"github.com/aitexteditor/aite/internal/search"
)

// allPointers lists the pointers of every item of a book.
func allPointers(t *testing.T, s *Session, id string) []pointer.Pointer {
	t.Helper()
	v, err := s.Items(id, "", 100000, nil)
	require.NoError(t, err)
	out := make([]pointer.Pointer, len(v.Items))
	for i, it := range v.Items {
		out[i] = it.Pointer
	}
	return out
}

func resultPointers(res []search.Result) []pointer.Pointer {
	out := make([]pointer.Pointer, len(res))
	for i, r := range res {
		out[i] = r.Pointer
	}
	return out
}

func TestLoadWithIDsKeepsPointersOfAnEditedBook(t *testing.T) {
	_, src := sampleBook(t)
	s := New()
	s.Load("b", src)
	ins, err := s.Edit("b", document.OpInsertBefore, "1.p1", "Звёздочкин проснулся раньше всех.")
	require.NoError(t, err)
	del, err := s.Edit("b", document.OpDelete, "1.1.p2", "")
	require.NoError(t, err)
	ids, next, err := s.ItemIDs("b")
	require.NoError(t, err)
	cur, err := s.Source("b")
	require.NoError(t, err)
	want := allPointers(t, s, "b")
	query := "Звёздочкин проснулся"
	wantHits, err := s.Search("b", query, Ranked, search.Options{Limit: 5})
	require.NoError(t, err)

	// A new session (a restarted process) loads the saved text and IDs.
	r := New()
	info, err := r.LoadWithIDs("b", cur, ids, next)
	require.NoError(t, err)
	require.Equal(t, len(want), info.Items)
	require.Zero(t, info.Edits)
	require.False(t, info.Dirty)
	require.Equal(t, want, allPointers(t, r, "b"))
	gotIDs, gotNext, err := r.ItemIDs("b")
	require.NoError(t, err)
	require.Equal(t, ids, gotIDs)
	require.Equal(t, next, gotNext)

	// The search index and cursors are built over the restored IDs.
	hits, err := r.Search("b", query, Ranked, search.Options{Limit: 5})
	require.NoError(t, err)
	require.Equal(t, resultPointers(wantHits), resultPointers(hits))
	require.Equal(t, ins.Pointer, hits[0].Pointer)
	spec := cursor.NewSpec(cursor.Keyword)
	spec.Keywords = []string{"проснулся"}
	c, err := r.CreateCursor("b", spec)
	require.NoError(t, err)
	p, err := r.Next("b", c.Name)
	require.NoError(t, err)
	require.Equal(t, ins.Pointer, p.Items[0].Pointer)
	whole, err := r.Next("b", cursor.WholeBookForward)
	require.NoError(t, err)
	for i, it := range whole.Items {
		require.Equal(t, want[i], it.Pointer, "the default cursor sees the restored IDs")
	}

	// Old pointers resolve to the same items; the deleted one stays deleted.
	got, err := r.Resolve("b", ins.Pointer.String())
	require.NoError(t, err)
	require.Equal(t, "Звёздочкин проснулся раньше всех.", got.Text)
	_, err = r.Resolve("b", del.Pointer.String())
	require.ErrorIs(t, err, document.ErrNotFound)

	// The next insert takes a fresh ID, and the index follows it.
	res, err := r.Edit("b", document.OpInsertAfter, ins.Pointer.String(), "Варя проснулась позже.")
	require.NoError(t, err)
	require.Equal(t, next, res.Pointer.ID)
	hits, err = r.Search("b", "Варя проснулась позже", Exact, search.Options{})
	require.NoError(t, err)
	require.Equal(t, []pointer.Pointer{res.Pointer}, resultPointers(hits))
	undone, err := r.Undo("b", 1)
	require.NoError(t, err)
	require.Equal(t, next, undone[0].ItemID)
	_, after, err := r.ItemIDs("b")
	require.NoError(t, err)
	require.Equal(t, next+1, after, "an undone insert's ID is not handed out again")
}

func TestLoadWithIDsRefusesIDsThatDoNotFit(t *testing.T) {
	src := []byte("# T\n\nOne.\n\nTwo.\n")
	s := New()
	s.Load("b", src)
	_, err := s.Edit("b", document.OpReplace, "1.p1", "Uno.")
	require.NoError(t, err)

	_, err = s.LoadWithIDs("b", src, []int{1, 2}, 9)
	require.ErrorIs(t, err, document.ErrIDs)
	_, err = s.LoadWithIDs("b", src, []int{1, 2, 2}, 9)
	require.ErrorIs(t, err, document.ErrIDs)
	j, err := s.Journal("b")
	require.NoError(t, err)
	require.Len(t, j, 1, "a refused load leaves the open book alone")

	_, err = s.LoadWithIDs("new", src, nil, 4)
	require.ErrorIs(t, err, document.ErrIDs)
	_, _, err = s.ItemIDs("new")
	require.ErrorIs(t, err, ErrUnknownBook, "a refused load opens nothing")
}
