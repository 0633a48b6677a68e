package document_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

// Preview runs the checks of the operation and reports its result without
// changing the document: the same Markdown before and after, the same
// refusals; Pointer is the target's (an insert's item does not exist yet).
func TestPreviewMatchesTheEdit(t *testing.T) {
	tests := []struct {
		name   string
		op     document.Op
		target string // item text
		text   string
		refuse bool
	}{
		{"replace a list item", document.OpReplace, "two", "deux", false},
		{"replace a heading keeps its level", document.OpReplace, "Chapter", "Kapitel", false},
		{"insert after a quote paragraph", document.OpInsertAfter, "Quoted two.", "Quoted three.", false},
		{"insert before a paragraph", document.OpInsertBefore, "First paragraph.", "Zeroth paragraph.", false},
		{"delete a paragraph", document.OpDelete, "Last paragraph.", "", false},
		{"replace with two blocks", document.OpReplace, "Intro paragraph.", "one\n\ntwo", true},
		{"a heading by insert", document.OpInsertAfter, "Intro paragraph.", "# New", true},
		{"delete a heading", document.OpDelete, "Chapter", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := markdown.Parse([]byte(book))
			ptr := find(t, d, tc.target)
			got, perr := d.Preview(tc.op, ptr, tc.text)
			require.Equal(t, book, string(d.Source()), "the preview changes nothing")
			require.Equal(t, 0, d.Version())
			require.Empty(t, d.Journal())

			var want document.EditResult
			var err error
			switch tc.op {
			case document.OpReplace:
				want, err = d.ReplaceText(ptr, tc.text)
			case document.OpInsertAfter:
				want, err = d.InsertAfter(ptr, tc.text)
			case document.OpInsertBefore:
				want, err = d.InsertBefore(ptr, tc.text)
			case document.OpDelete:
				want, err = d.Delete(ptr)
			}
			if tc.refuse {
				require.Error(t, perr)
				require.Equal(t, err.Error(), perr.Error(), "the same refusal")
				return
			}
			require.NoError(t, err)
			require.NoError(t, perr)
			require.Equal(t, want.Op, got.Op)
			require.Equal(t, want.Target, got.Target)
			require.Equal(t, want.Target, got.Pointer)
			require.Equal(t, want.MarkdownBefore, got.MarkdownBefore)
			require.Equal(t, want.MarkdownAfter, got.MarkdownAfter)
			require.Equal(t, want.Splice, got.Splice)
		})
	}
	d := markdown.Parse([]byte(book))
	_, err := d.Preview("move", find(t, d, "two"), "")
	require.ErrorIs(t, err, document.ErrUnsupported)
}
