package editor

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
)

func TestReloadKeepsPointersOutsideTheChange(t *testing.T) {
	const v0 = "# A\n\nfirst\n\nsecond\n\n## B\n\nthird\n"
	s := New()
	s.Load("b", []byte(v0))
	// An edit makes v1 (and gives the new paragraph a new id).
	res, err := s.Edit("b", document.OpReplace, "1.p2", "second, rewritten")
	require.NoError(t, err)
	require.Equal(t, "3:1.p2", res.Target.String())
	rewritten := res.Pointer.String()
	v1, err := s.Source("b")
	require.NoError(t, err)
	idsV1, nextV1, err := s.ItemIDs("b")
	require.NoError(t, err)

	// Restoring v0: the unchanged items keep their ids; the restored
	// paragraph gets a new one above every id used so far.
	info, err := s.Reload("b", []byte(v0))
	require.NoError(t, err)
	require.True(t, info.Dirty)
	src, err := s.Source("b")
	require.NoError(t, err)
	require.Equal(t, v0, string(src))
	ids, next, err := s.ItemIDs("b")
	require.NoError(t, err)
	require.Equal(t, []int{idsV1[0], idsV1[1], nextV1, idsV1[3], idsV1[4]}, ids)
	require.Equal(t, nextV1+1, next)
	for _, p := range []string{"1:1", "2:1.p1", "4:1.1", "5:1.1.p1"} {
		it, err := s.Resolve("b", p)
		require.NoError(t, err, p)
		require.Equal(t, p, it.Pointer.String())
	}
	_, err = s.Resolve("b", rewritten)
	require.Error(t, err, "the pointer of the replaced paragraph is gone")

	// The search index follows the new text.
	rs, err := s.Search("b", "rewritten", All, search.Options{})
	require.NoError(t, err)
	require.Empty(t, rs)
	rs, err = s.Search("b", "second", All, search.Options{})
	require.NoError(t, err)
	require.Len(t, rs, 1)

	// And back to v1.
	_, err = s.Reload("b", v1)
	require.NoError(t, err)
	src, _ = s.Source("b")
	require.Equal(t, string(v1), string(src))

	_, err = s.Reload("nope", []byte("x"))
	require.ErrorIs(t, err, ErrUnknownBook)
}

func TestReloadChangedKindGetsNewID(t *testing.T) {
	s := New()
	s.Load("b", []byte("para\n\nnext\n"))
	// "next" stays in place but the paragraph before becomes a heading.
	_, err := s.Reload("b", []byte("para\n===\n\nnext\n"))
	require.NoError(t, err)
	ids, next, err := s.ItemIDs("b")
	require.NoError(t, err)
	require.Equal(t, []int{3, 2}, ids)
	require.Equal(t, 4, next)
}

func TestItemsAt(t *testing.T) {
	s := New()
	s.Load("b", []byte(strings.Repeat("p\n\n", 10)))
	items, total, err := s.ItemsAt("b", 8, 5)
	require.NoError(t, err)
	require.Equal(t, 10, total)
	require.Len(t, items, 2)
	require.Equal(t, 8, items[0].Index)
	items, total, err = s.ItemsAt("b", 12, 5)
	require.NoError(t, err)
	require.Equal(t, 10, total)
	require.Empty(t, items)
	_, _, err = s.ItemsAt("b", -1, 5)
	require.ErrorIs(t, err, document.ErrRange)
}

func TestItemAfter(t *testing.T) {
	s := New()
	s.Load("b", []byte("# A\n\nfirst\n\nsecond\n"))
	for off, want := range map[int]string{0: "1:1", 3: "2:1.p1", 4: "2:1.p1", 10: "3:1.p2", 17: "3:1.p2"} {
		it, err := s.ItemAfter("b", off)
		require.NoError(t, err, off)
		require.Equal(t, want, it.Pointer.String(), off)
	}
	_, err := s.ItemAfter("b", 18)
	require.ErrorIs(t, err, document.ErrRange)
}
