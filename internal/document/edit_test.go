package document_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/stretchr/testify/require"
)

const book = `# Title

Intro paragraph.

## Chapter

First paragraph.

- one
- two
  - nested a
  - nested b
- three

1. first
2. second

> Quoted one
> still one.
>
> Quoted two.

Text with a note.[^n]

[^n]: The note.

Last paragraph.
`

func find(t *testing.T, d *document.Document, text string) string {
	t.Helper()
	for _, it := range d.Items() {
		if it.Text == text {
			return it.Pointer().String()
		}
	}
	t.Fatalf("no item with text %q", text)
	return ""
}

func TestEditsInEveryContainer(t *testing.T) {
	tests := []struct {
		name   string
		target string // item text
		op     string
		text   string
		want   string // replacement of the lines around: old → new fragment
		from   string
	}{
		{"replace top-level", "First paragraph.", "replace", "New first.", "\nNew first.\n", "\nFirst paragraph.\n"},
		{"replace list item bare", "two", "replace", "TWO", "- TWO\n  - nested a", "- two\n  - nested a"},
		{"replace list item with marker", "two", "replace", "* TWO", "- TWO\n  - nested a", "- two\n  - nested a"},
		{"replace nested item bare", "nested a", "replace", "NA", "  - NA\n", "  - nested a\n"},
		{"replace nested item with marker", "nested a", "replace", "- NA", "  - NA\n", "  - nested a\n"},
		{"replace ordered item", "second", "replace", "SECOND", "2. SECOND\n", "2. second\n"},
		{"replace quote bare multi-line", "Quoted one still one.", "replace", "Q1\nline two", "> Q1\n> line two\n>\n", "> Quoted one\n> still one.\n>\n"},
		{"replace quote with markers", "Quoted two.", "replace", "> Q2", "> Q2\n", "> Quoted two.\n"},
		{"replace footnote", "The note.", "replace", "[^n]: A new note.", "[^n]: A new note.\n", "[^n]: The note.\n"},
		{"replace heading bare", "Chapter", "replace", "Renamed", "## Renamed\n", "## Chapter\n"},
		{"replace heading same level", "Chapter", "replace", "## Renamed", "## Renamed\n", "## Chapter\n"},
		{"insert after top-level", "First paragraph.", "after", "Added.", "First paragraph.\n\nAdded.\n\n- one", "First paragraph.\n\n- one"},
		{"insert before top-level", "Last paragraph.", "before", "Added.", "\n\nAdded.\n\nLast paragraph.", "\n\nLast paragraph."},
		{"insert after list item", "one", "after", "one and a half", "- one\n- one and a half\n- two", "- one\n- two"},
		{"insert after list item with nested", "two", "after", "two and a half", "  - nested b\n- two and a half\n- three", "  - nested b\n- three"},
		{"insert before list item", "three", "before", "2.9", "  - nested b\n- 2.9\n- three", "  - nested b\n- three"},
		{"insert after nested item", "nested a", "after", "nested a2", "  - nested a\n  - nested a2\n  - nested b", "  - nested a\n  - nested b"},
		{"insert after ordered item", "first", "after", "middle", "1. first\n2. middle\n2. second", "1. first\n2. second"},
		{"insert before ordered item", "first", "before", "zeroth", "\n1. zeroth\n1. first\n", "\n1. first\n"},
		{"insert after quote", "Quoted one still one.", "after", "Inside.", "> still one.\n>\n> Inside.\n>\n> Quoted two.", "> still one.\n>\n> Quoted two."},
		{"insert after heading", "Chapter", "after", "Under the heading.", "## Chapter\n\nUnder the heading.\n\nFirst", "## Chapter\n\nFirst"},
		{"delete top-level", "First paragraph.", "delete", "", "## Chapter\n\n- one", "## Chapter\n\nFirst paragraph.\n\n- one"},
		{"delete list item", "one", "delete", "", "\n- two\n", "\n- one\n- two\n"},
		{"delete nested item", "nested b", "delete", "", "  - nested a\n- three", "  - nested a\n  - nested b\n- three"},
		{"delete last quote paragraph", "Quoted two.", "delete", "", "> still one.\n\nText", "> still one.\n>\n> Quoted two.\n\nText"},
		{"delete footnote", "The note.", "delete", "", "note.[^n]\n\nLast", "note.[^n]\n\n[^n]: The note.\n\nLast"},
		{"delete last paragraph", "Last paragraph.", "delete", "", "[^n]: The note.\n", "[^n]: The note.\n\nLast paragraph.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := markdown.Parse([]byte(book))
			ptr := find(t, d, tt.target)
			var res document.EditResult
			var err error
			switch tt.op {
			case "replace":
				res, err = d.ReplaceText(ptr, tt.text)
			case "after":
				res, err = d.InsertAfter(ptr, tt.text)
			case "before":
				res, err = d.InsertBefore(ptr, tt.text)
			case "delete":
				res, err = d.Delete(ptr)
			}
			require.NoError(t, err)
			require.Contains(t, book, tt.from)
			want := strings.Replace(book, tt.from, tt.want, 1)
			require.Equal(t, want, string(d.Source()))
			fresh := markdown.Parse(d.Source())
			require.Equal(t, fresh.Len(), d.Len())
			for i, it := range d.Items() {
				require.Equal(t, fresh.At(i).Kind, it.Kind)
				require.Equal(t, fresh.At(i).Label, it.Label)
				require.Equal(t, fresh.At(i).Text, it.Text)
			}
			if tt.op != "delete" {
				it, err := d.Resolve(res.Pointer.String())
				require.NoError(t, err)
				require.Equal(t, res.MarkdownAfter, d.Markdown(it))
			}
			require.Len(t, d.Journal(), 1)
			_, err = d.Undo()
			require.NoError(t, err)
			require.Equal(t, book, string(d.Source()))
		})
	}
}

func TestRefusedEditsLeaveTheDocument(t *testing.T) {
	tests := []struct {
		name, target, op, text string
		err                    error
		says                   string
	}{
		{"delete heading", "Chapter", "delete", "", document.ErrHeading, "is a heading"},
		{"replace makes heading", "First paragraph.", "replace", "# Sneaky", document.ErrHeading, "would create a heading"},
		{"heading level change", "Chapter", "replace", "### Deeper", document.ErrHeading, "must stay level 2"},
		{"heading two lines", "Chapter", "replace", "One\nTwo", document.ErrHeading, "one line"},
		{"insert heading", "First paragraph.", "after", "## New chapter", document.ErrHeading, "would create a heading"},
		{"empty replace", "First paragraph.", "replace", "  \n\n", document.ErrEmptyText, "use delete"},
		{"empty insert", "First paragraph.", "after", "", document.ErrEmptyText, "empty"},
		{"two blocks", "First paragraph.", "replace", "One.\n\nTwo.", document.ErrStructure, "more than one block"},
		{"unclosed fence", "First paragraph.", "replace", "```\ncode", document.ErrStructure, "merge"},
		{"setext underline swallows", "First paragraph.", "after", "Text\n===", document.ErrHeading, "heading"},
		{"delete list item with nested", "two", "delete", "", document.ErrStructure, "also holds"},
		{"link definition only", "First paragraph.", "after", "[x]: /url", document.ErrStructure, "link reference definition"},
		{"bad pointer", "", "replace", "x", document.ErrNotFound, "nearest pointers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := markdown.Parse([]byte(book))
			ptr := "999:9.9.p9"
			if tt.target != "" {
				ptr = find(t, d, tt.target)
			}
			before := d.Len()
			var err error
			switch tt.op {
			case "replace":
				_, err = d.ReplaceText(ptr, tt.text)
			case "after":
				_, err = d.InsertAfter(ptr, tt.text)
			case "delete":
				_, err = d.Delete(ptr)
			}
			require.Error(t, err)
			require.True(t, errors.Is(err, tt.err), "error %v should wrap %v", err, tt.err)
			require.Contains(t, err.Error(), tt.says)
			require.Equal(t, book, string(d.Source()))
			require.Equal(t, before, d.Len())
			require.Empty(t, d.Journal())
		})
	}
}

func TestIDsStableAndLabelsRecomputed(t *testing.T) {
	d := markdown.Parse([]byte(book))
	last, err := d.Resolve(find(t, d, "Last paragraph."))
	require.NoError(t, err)
	oldPtr := last.Pointer()
	maxID := d.Len()
	res, err := d.InsertAfter(find(t, d, "First paragraph."), "Inserted.")
	require.NoError(t, err)
	require.Equal(t, maxID+1, res.Pointer.ID, "a new item gets max+1")
	moved := d.ByID(oldPtr.ID)
	require.Equal(t, oldPtr.ID, moved.ID)
	require.NotEqual(t, oldPtr.Label, moved.Label, "labels follow the structure")
	// The old pointer still resolves by ID and reports the current label.
	it, err := d.Resolve(oldPtr.String())
	require.NoError(t, err)
	require.Equal(t, moved, it)
	// Deleted IDs are never reused.
	_, err = d.Delete(res.Pointer.String())
	require.NoError(t, err)
	res2, err := d.InsertAfter(find(t, d, "First paragraph."), "Again.")
	require.NoError(t, err)
	require.Equal(t, maxID+2, res2.Pointer.ID)
	_, err = d.Resolve(res.Pointer.String())
	require.ErrorIs(t, err, document.ErrNotFound)
	require.Contains(t, err.Error(), "no longer exists")
}

func TestCRLFEditKeepsLineEndings(t *testing.T) {
	src := strings.ReplaceAll(book, "\n", "\r\n")
	d := markdown.Parse([]byte(src))
	_, err := d.ReplaceText(find(t, d, "Quoted one still one."), "A\nB")
	require.NoError(t, err)
	_, err = d.InsertAfter(find(t, d, "one"), "new")
	require.NoError(t, err)
	out := string(d.Source())
	require.NotContains(t, strings.ReplaceAll(out, "\r\n", ""), "\n", "every line ending stays CRLF")
	require.Contains(t, out, "> A\r\n> B\r\n")
	require.Contains(t, out, "- one\r\n- new\r\n- two")
}

func TestUndoSeveral(t *testing.T) {
	d := markdown.Parse([]byte(book))
	_, err := d.ReplaceText(find(t, d, "First paragraph."), "X")
	require.NoError(t, err)
	_, err = d.Delete(find(t, d, "one"))
	require.NoError(t, err)
	_, err = d.InsertBefore(find(t, d, "Last paragraph."), "Y")
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		_, err = d.Undo()
		require.NoError(t, err)
	}
	require.Equal(t, book, string(d.Source()))
	fresh := markdown.Parse([]byte(book))
	for i, it := range d.Items() {
		require.Equal(t, fresh.At(i).ID, it.ID, "undo restores the original IDs")
		require.Equal(t, fresh.At(i).Label, it.Label)
	}
	_, err = d.Undo()
	require.ErrorIs(t, err, document.ErrNothingToUndo)
}

func TestAppend(t *testing.T) {
	tests := []struct {
		name, src, text, want string
		err                   error
	}{
		{"empty book gets a heading", "", "# Title", "# Title\n", nil},
		{"empty book gets a paragraph", "", "First words.", "First words.\n", nil},
		{"blank lines only", "\n\n", "# Title", "\n\n# Title\n", nil},
		{"a link definition only", "[x]: /u\n", "Text [x].", "[x]: /u\n\nText [x].\n", nil},
		{"after the last paragraph", "# T\n\nLast.\n", "More.", "# T\n\nLast.\n\nMore.\n", nil},
		{"no final newline", "# T\n\nLast.", "More.", "# T\n\nLast.\n\nMore.\n", nil},
		{"after a list, at top level", "- a\n- b\n", "After.", "- a\n- b\n\nAfter.\n", nil},
		{"CRLF kept", "# T\r\n\r\nLast.\r\n", "More.", "# T\r\n\r\nLast.\r\n\r\nMore.\r\n", nil},
		{"no heading once the book has items", "Text.\n", "# New", "", document.ErrHeading},
		{"one block only", "", "a\n\nb", "", document.ErrStructure},
		{"not empty text", "", "  \n", "", document.ErrEmptyText},
		{"inside an open fence", "```\ncode\n", "More.", "", document.ErrStructure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := markdown.Parse([]byte(tt.src))
			n := d.Len()
			res, err := d.Append(tt.text)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				require.Equal(t, tt.src, string(d.Source()), "a refused append changes nothing")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, string(d.Source()))
			require.Equal(t, n+1, d.Len())
			require.Equal(t, d.Items()[n].Pointer(), res.Pointer)
			again := markdown.Parse(d.Source())
			require.Equal(t, pointersOf(d), pointersOf(again), "the result re-parses to the same items")
			_, err = d.Undo()
			require.NoError(t, err)
			require.Equal(t, tt.src, string(d.Source()), "undo restores the bytes")
		})
	}
}

func pointersOf(d *document.Document) []string {
	var out []string
	for _, it := range d.Items() {
		out = append(out, it.Label+" "+string(it.Kind))
	}
	return out
}
