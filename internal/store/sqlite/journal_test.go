package sqlite

import (
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/stretchr/testify/require"
)

// A journal that does not fit its snapshot (here: a damaged row) is an
// error, never a wrong text.
func TestDamagedJournalIsAnError(t *testing.T) {
	s := openTemp(t)
	at := time.Date(2026, 2, 12, 11, 0, 0, 0, time.UTC)
	_, err := s.CreateDocument(bg, store.Document{ID: "d1", Name: "d", Markdown: "# A\n\nB.\n", ItemCount: 2,
		ItemIDs: []int{1, 2}, NextItemID: 3, CreatedAt: at, UpdatedAt: at})
	require.NoError(t, err)
	e := store.DocumentEdit{Revision: 1, Op: "replace", At: at, Splice: &store.Splice{At: 5, Old: "B", New: "C"},
		IDs: &store.IDSplice{At: 1, Old: 1, New: []int{2}, Next: 3}}
	_, err = s.ApplyDocumentEdit(bg, "d1", store.DocumentContent{Later: func() store.DocumentContent {
		t.Fatal("no snapshot is due")
		return store.DocumentContent{}
	}}, e)
	require.NoError(t, err)
	d, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, "# A\n\nC.\n", d.Markdown)
	for _, damage := range []string{`UPDATE document_edits SET splice_old = 'X'`, `UPDATE document_edits SET splice_at = 99`,
		`UPDATE document_edits SET ids_at = 5`, `UPDATE documents SET size_bytes = 7`} {
		tx, err := s.w.BeginTx(bg, nil)
		require.NoError(t, err)
		_, err = tx.ExecContext(bg, damage)
		require.NoError(t, err)
		_, err = document(bg, tx, "d1")
		require.ErrorIs(t, err, store.ErrInvalid, damage)
		require.NoError(t, tx.Rollback())
	}
}
