package editor

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/textdiff"
	"github.com/stretchr/testify/require"
)

// The diff, the journal entry and the written file of a book edited in
// pieces are exactly what the whole texts before and after give: random
// runs of edits (one to 80, so the document keeps or loses the record of
// its edits since the save), each diffed, saved and journaled, then undone
// from the journal.
func TestEditsInPiecesDiffSaveJournal(t *testing.T) {
	path, _ := sampleBook(t)
	r := rand.New(rand.NewPCG(21, 4))
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	for round := range 12 {
		before, err := os.ReadFile(path)
		require.NoError(t, err)
		edits := 1 + r.IntN(3)
		if round%4 == 3 {
			edits = 80 // more than the document keeps the changes of
		}
		for range edits {
			items, total, err := s.ItemsAt(path, 0, 1<<20)
			require.NoError(t, err)
			it := items[r.IntN(total)]
			text := fmt.Sprintf("Абзац %d, круг %d.", r.IntN(1000), round)
			op := []document.Op{document.OpReplace, document.OpInsertAfter, document.OpInsertBefore, document.OpDelete}[r.IntN(4)]
			if op == document.OpDelete || op == document.OpReplace && it.Kind != document.Paragraph {
				op = document.OpInsertAfter
			}
			_, _ = s.Edit(path, op, it.Pointer.String(), text)
		}
		got, err := s.Diff(path) // before Source, which would join the pieces
		require.NoError(t, err)
		_, err = s.Save(path, SaveOptions{Record: fmt.Sprintf("round %d", round)})
		require.NoError(t, err)
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, textdiff.Unified("a/"+path[1:], "b/"+path[1:], before, after, 3), got, "round %d", round)
		src, err := s.Source(path)
		require.NoError(t, err)
		require.Equal(t, string(src), string(after), "round %d", round)
		l, err := readLog(path)
		require.NoError(t, err)
		c := l.Commands[len(l.Commands)-1]
		require.Equal(t, change(before, after), c.Change, "round %d", round)
		require.Equal(t, digest(before), c.Before, "round %d", round)
		require.Equal(t, digest(after), c.After, "round %d", round)
		require.NotEmpty(t, c.IDs, "round %d: the IDs of the version before", round)
		rec, err := readRecord(path)
		require.NoError(t, err)
		require.Equal(t, markdown.Parse(after).ItemHashes(), rec.hashes, "round %d: the item hashes recorded", round)
	}
	for range 12 {
		_, err := UndoCommand(path, false, false)
		require.NoError(t, err)
	}
	_, src := sampleBook(t)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(src), string(got))
}
