package store_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

// Replay gives what applying the edits one by one gives, for random
// splices of the text and the item IDs anywhere (inside earlier
// insertions too), and refuses a change that does not fit.
func TestReplayMatchesEditsOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 3))
	for round := range 200 {
		text := strings.Repeat("abcdefghij", 1+r.IntN(20))
		ids := []int{1, 2, 3, 4, 5}
		snap := store.DocumentContent{Markdown: text, ItemCount: len(ids), ItemIDs: slices.Clone(ids), NextItemID: 6}
		next := 6
		var edits []store.DocumentEdit
		for k := range 1 + r.IntN(30) {
			at := r.IntN(len(text) + 1)
			n := r.IntN(len(text) - at + 1)
			n = min(n, 7)
			newText := strings.Repeat(string(rune('A'+k%26)), r.IntN(5))
			ia := r.IntN(len(ids) + 1)
			io := min(r.IntN(3), len(ids)-ia)
			var nw []int
			for range r.IntN(3) {
				nw = append(nw, next)
				next++
			}
			e := store.DocumentEdit{DocumentID: "d", Revision: k + 1,
				Splice: &store.Splice{At: at, Old: text[at : at+n], New: newText},
				IDs:    &store.IDSplice{At: ia, Old: io, New: nw, Next: next}}
			edits = append(edits, e)
			text = text[:at] + newText + text[at+n:]
			ids = slices.Replace(ids, ia, ia+io, nw...)
		}
		got, err := store.Replay(snap, edits)
		require.NoError(t, err, "round %d", round)
		require.Equal(t, text, got.Markdown, "round %d", round)
		require.Equal(t, ids, got.ItemIDs, "round %d", round)
		require.Equal(t, len(ids), got.ItemCount)
		require.Equal(t, next, got.NextItemID)

		bad := slices.Clone(edits)
		last := *bad[len(bad)-1].Splice
		last.Old += "?" // bytes that are not there
		bad[len(bad)-1].Splice = &last
		_, err = store.Replay(snap, bad)
		require.ErrorIs(t, err, store.ErrInvalid, "round %d", round)
	}
}

// The snapshot rule: an edit that cannot be replayed, a snapshot without
// item IDs, or a journal past either bound makes a snapshot.
func TestSnapshotDue(t *testing.T) {
	e := store.DocumentEdit{Splice: &store.Splice{New: "x"}, IDs: &store.IDSplice{Next: 2}}
	require.False(t, store.SnapshotDue(2, 0, 0, e))
	require.False(t, store.SnapshotDue(2, store.SnapshotEdits-1, store.SnapshotBytes-1, e))
	require.True(t, store.SnapshotDue(2, store.SnapshotEdits, 0, e), "the edits bound")
	require.True(t, store.SnapshotDue(2, 0, store.SnapshotBytes, e), "the bytes bound")
	require.True(t, store.SnapshotDue(0, 0, 0, e), "a snapshot without item IDs")
	require.True(t, store.SnapshotDue(2, 0, 0, store.DocumentEdit{Splice: e.Splice}), "no item ID change")
	require.True(t, store.SnapshotDue(2, 0, 0, store.DocumentEdit{IDs: e.IDs}), "no text change")
}
