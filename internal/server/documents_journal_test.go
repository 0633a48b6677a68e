package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/sqlite"
)

// itemShape is what a restart must restore of an item.
type itemShape struct {
	ID, Index   int
	Label, Kind string
	Markdown    string
}

// shapes lists the items of a loaded document.
func shapes(t *testing.T, docs *Documents, id string) []itemShape {
	t.Helper()
	views, _, err := docs.session.ItemsAt(id, 0, 1<<31-1)
	require.NoError(t, err)
	out := make([]itemShape, len(views))
	for i, v := range views {
		out[i] = itemShape{ID: v.ID, Index: v.Index, Label: v.Label, Kind: string(v.Kind), Markdown: v.Markdown}
	}
	return out
}

// parsedShapes lists the items of src parsed afresh and given ids.
func parsedShapes(t *testing.T, src []byte, ids []int, next int) []itemShape {
	t.Helper()
	d := markdown.Parse(src)
	require.NoError(t, d.RestoreIDs(ids, next))
	out := make([]itemShape, d.Len())
	for i, it := range d.Items() {
		out[i] = itemShape{ID: it.ID, Index: it.Index(), Label: it.Label, Kind: string(it.Kind), Markdown: d.Markdown(it)}
	}
	return out
}

// TestRestartRestoresExactly makes hundreds of random edits (and reverts)
// to a stored document, so its journal crosses several snapshots, then
// starts a new process over the same SQLite file: the document it loads
// (the last snapshot with the edits since replayed) is the text and the
// items (IDs, labels, kinds, Markdown) the old process had in memory, and
// they are those of a full parse of that text with its stored item IDs. The
// earlier revisions rebuild from it as before.
func TestRestartRestoresExactly(t *testing.T) {
	src, err := os.ReadFile("../../examples/zvezdochkin.md")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "aite.db")
	st, err := sqlite.Open(path)
	require.NoError(t, err)
	ctx := agent.WithCall(context.Background(), "call")
	docs := NewDocuments(st, nil)
	doc, err := docs.Create(ctx, "book", src, 0)
	require.NoError(t, err)
	tools, err := docs.BookTools(ctx, doc.ID, "run", nil)
	require.NoError(t, err)

	r := rand.New(rand.NewPCG(21, 2))
	names := []string{"editor-replace_text", "editor-insert_after", "editor-insert_before", "editor-delete"}
	texts := map[int]string{} // the text of each revision, to check the reverts
	texts[0] = string(src)
	revision, reverts := 0, 0
	for i := 0; revision < 2*store.SnapshotEdits+60; i++ {
		if i%97 == 96 && revision > 10 { // now and then, restore an earlier revision
			rev := r.IntN(revision)
			_, err := docs.Revert(ctx, doc.ID, rev)
			require.NoError(t, err, "revert to %d", rev)
			revision++
			reverts++
			s, err := docs.session.Source(doc.ID)
			require.NoError(t, err)
			require.Equal(t, texts[rev], string(s), "revert to %d", rev)
			texts[revision] = string(s)
			continue
		}
		views, total, err := docs.session.ItemsAt(doc.ID, 0, 1<<31-1)
		require.NoError(t, err)
		v := views[r.IntN(total)]
		if v.Kind != document.Paragraph {
			continue
		}
		name := names[r.IntN(len(names))]
		args, _ := json.Marshal(map[string]string{"pointer": strconv.Itoa(v.ID) + ":",
			"markdown": fmt.Sprintf("Paragraph of edit %d: *changed* text.", i)})
		res, err := tools[name].Call(ctx, args)
		require.NoError(t, err)
		if res.IsError {
			continue // a refused edit (say, the last paragraph of a section deleted) changes nothing
		}
		require.Len(t, res.Edits, 1, res.Text)
		revision = res.Edits[0].Revision
		s, err := docs.session.Source(doc.ID)
		require.NoError(t, err)
		texts[revision] = string(s)
	}
	require.Positive(t, reverts)
	want := shapes(t, docs, doc.ID)
	wantSrc, err := docs.session.Source(doc.ID)
	require.NoError(t, err)
	ids, next, err := docs.session.ItemIDs(doc.ID)
	require.NoError(t, err)
	require.NoError(t, st.Close())

	st, err = sqlite.Open(path) // a new process
	require.NoError(t, err)
	defer st.Close()
	stored, err := st.GetDocument(ctx, doc.ID)
	require.NoError(t, err)
	require.Equal(t, revision, stored.Revision)
	require.Equal(t, string(wantSrc), stored.Markdown, "the stored text is the text in memory")
	require.Equal(t, ids, stored.ItemIDs)
	require.Equal(t, next, stored.NextItemID)
	again := NewDocuments(st, nil)
	_, err = again.BookTools(ctx, doc.ID, "run2", nil) // loads it
	require.NoError(t, err)
	require.Equal(t, want, shapes(t, again, doc.ID), "the restarted document's items")
	require.Equal(t, want, parsedShapes(t, wantSrc, ids, next), "a full parse of the text with the stored IDs")
	for _, rev := range []int{0, 1, store.SnapshotEdits - 1, store.SnapshotEdits, store.SnapshotEdits + 1, revision - 1} {
		text, _, err := again.textAt(ctx, doc.ID, rev)
		require.NoError(t, err, "revision %d", rev)
		require.Equal(t, texts[rev], text, "revision %d rebuilt after the restart", rev)
	}
}
