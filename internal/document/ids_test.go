package document_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/pointer"
)

// pointers returns the canonical pointers of every item in document order.
func pointers(d *document.Document) []pointer.Pointer {
	out := make([]pointer.Pointer, d.Len())
	for i, it := range d.Items() {
		out[i] = it.Pointer()
	}
	return out
}

// reloaded parses the source of d again and restores the IDs of d: what a
// process does after a restart.
func reloaded(t *testing.T, d *document.Document) *document.Document {
	t.Helper()
	ids, next := d.ItemIDs()
	r := markdown.Parse(d.Source())
	require.NoError(t, r.RestoreIDs(ids, next))
	return r
}

func TestItemIDsOfAFreshDocument(t *testing.T) {
	d := markdown.Parse([]byte(book))
	ids, next := d.ItemIDs()
	require.Len(t, ids, d.Len())
	for i, id := range ids {
		require.Equal(t, i+1, id, "a fresh document numbers its items 1..n")
	}
	require.Equal(t, d.Len()+1, next)
}

func TestRestoreIDsKeepsPointersAcrossAReload(t *testing.T) {
	d := markdown.Parse([]byte(book))
	first := find(t, d, "Intro paragraph.")
	ins, err := d.InsertBefore(first, "Brand new opening.")
	require.NoError(t, err)
	del, err := d.Delete(find(t, d, "First paragraph."))
	require.NoError(t, err)
	ids, next := d.ItemIDs()
	require.Equal(t, d.Len()+2, next, "one insert, one delete: next is past every ID ever used")

	r := reloaded(t, d)
	require.Equal(t, pointers(d), pointers(r), "every pointer survives the reload")
	gotIDs, gotNext := r.ItemIDs()
	require.Equal(t, ids, gotIDs)
	require.Equal(t, next, gotNext)

	// Resolution by ID finds the same item, even with a stale label.
	it, err := r.Resolve(ins.Pointer.String())
	require.NoError(t, err)
	require.Equal(t, "Brand new opening.", it.Text)
	it, err = r.Resolve(pointer.Pointer{ID: ins.Pointer.ID, Label: "9.p9"}.String())
	require.NoError(t, err)
	require.Equal(t, "Brand new opening.", it.Text)
	require.Same(t, it, r.ByID(ins.Pointer.ID))
	// A plain parse would give the intro's ID to the new opening.
	intro, err := r.Resolve(first)
	require.NoError(t, err)
	require.Equal(t, "Intro paragraph.", intro.Text)
	plain := markdown.Parse(d.Source())
	require.Equal(t, "Brand new opening.", plain.ByID(intro.ID).Text, "the bug RestoreIDs prevents")

	// The deleted item's ID stays dead.
	_, err = r.Resolve(del.Pointer.String())
	require.ErrorIs(t, err, document.ErrNotFound)
	require.Contains(t, err.Error(), "no longer exists")

	// Edits go on from the restored state: a new item gets an unused ID.
	res, err := r.InsertAfter(ins.Pointer.String(), "Second opening.")
	require.NoError(t, err)
	require.Equal(t, next, res.Pointer.ID)
	rep, err := r.ReplaceText(ins.Pointer.String(), "Renamed opening.")
	require.NoError(t, err)
	require.Equal(t, ins.Pointer.ID, rep.Pointer.ID, "a replace keeps the restored ID")
	gone, err := r.Delete(res.Pointer.String())
	require.NoError(t, err)
	require.Equal(t, next, gone.Pointer.ID)

	// Undo brings the deleted item back with its ID and reverts the rest.
	for range 3 {
		_, err = r.Undo()
		require.NoError(t, err)
	}
	require.Equal(t, string(d.Source()), string(r.Source()))
	require.Equal(t, pointers(d), pointers(r))
	_, next2 := r.ItemIDs()
	require.Equal(t, next+1, next2, "undo never hands out an ID again")
	_, err = r.Undo()
	require.ErrorIs(t, err, document.ErrNothingToUndo, "the journal starts at the reload")
}

func TestRestoreIDsOnAnEmptyDocument(t *testing.T) {
	d := markdown.Parse(nil)
	require.NoError(t, d.RestoreIDs(nil, 7))
	ids, next := d.ItemIDs()
	require.Empty(t, ids)
	require.Equal(t, 7, next)
}

func TestRestoreIDsRejects(t *testing.T) {
	src := []byte("# T\n\nOne.\n\nTwo.\n")
	tests := []struct {
		name string
		ids  []int
		next int
		want string
	}{
		{"too few", []int{1, 2}, 9, "2 IDs for 3 items"},
		{"too many", []int{1, 2, 3, 4}, 9, "4 IDs for 3 items"},
		{"nil", nil, 9, "0 IDs for 3 items"},
		{"zero ID", []int{1, 0, 3}, 9, "item 1 has ID 0"},
		{"negative ID", []int{-1, 2, 3}, 9, "item 0 has ID -1"},
		{"repeated ID", []int{4, 2, 4}, 9, "items 0 and 2 both have ID 4"},
		{"ID equal to next", []int{1, 2, 9}, 9, "item 2 has ID 9"},
		{"ID above next", []int{10, 2, 3}, 9, "item 0 has ID 10"},
		{"next zero", []int{1, 2, 3}, 0, "the next ID must be at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := markdown.Parse(src)
			before := pointers(d)
			err := d.RestoreIDs(tt.ids, tt.next)
			require.ErrorIs(t, err, document.ErrIDs)
			require.ErrorContains(t, err, tt.want)
			require.Equal(t, before, pointers(d), "a refused restore changes nothing")
			_, next := d.ItemIDs()
			require.Equal(t, 4, next)
			require.Equal(t, "One.", d.ByID(2).Text)
		})
	}

	t.Run("after an edit", func(t *testing.T) {
		d := markdown.Parse(src)
		_, err := d.ReplaceText("2", "Uno.")
		require.NoError(t, err)
		ids, next := d.ItemIDs()
		err = d.RestoreIDs(ids, next+1)
		require.ErrorIs(t, err, document.ErrIDs)
		require.ErrorContains(t, err, "journaled edits")
		_, got := d.ItemIDs()
		require.Equal(t, next, got)
	})
}

// The bound on the next ID (document.MaxNextID): 16 per item plus 2^20,
// never 2^31, so a table indexed by ID stays proportional to the book.
// A record at the bound passes, one above it is refused.
func TestMaxNextID(t *testing.T) {
	for _, tt := range []struct{ n, want int }{
		{0, 1 << 20}, {3, 1<<20 + 48}, {1 << 26, 1<<30 + 1<<20}, {1 << 27, 1<<31 - 1}, {1 << 40, 1<<31 - 1}, {-1, 1 << 20},
	} {
		require.Equal(t, tt.want, document.MaxNextID(tt.n), "%d items", tt.n)
	}
	require.NoError(t, document.CheckNextID(1<<20+48, 3))
	for _, next := range []int{1<<20 + 49, 1<<32 - 6} {
		err := document.CheckNextID(next, 3)
		require.ErrorIs(t, err, document.ErrIDs)
		require.ErrorContains(t, err, fmt.Sprintf("the next ID %d is beyond 1048624, the bound for 3 items", next))
	}
}

func TestItemHashes(t *testing.T) {
	d := markdown.Parse([]byte("# T\n\nOne.\n\nTwo.\n\nOne.\n"))
	h := d.ItemHashes()
	require.Len(t, h, 4)
	require.Equal(t, h[1], h[3], "equal Markdown, equal hash")
	require.NotEqual(t, h[1], h[2])
	require.Equal(t, document.ItemHash([]byte("Two.")), h[2])
}
