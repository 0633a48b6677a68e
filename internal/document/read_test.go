package document_test

import (
	"errors"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/pointer"
	"github.com/stretchr/testify/require"
)

func TestLabelsOfABook(t *testing.T) {
	d := markdown.Parse([]byte("# T\n\nintro\n\n## S\n\na\n\nb\n\n#### Deep\n\nc\n"))
	var got []string
	for _, it := range d.Items() {
		got = append(got, it.Pointer().String())
	}
	require.Equal(t, []string{"1:1", "2:1.p1", "3:1.1", "4:1.1.p1", "5:1.1.p2", "6:1.1.0.1", "7:1.1.0.1.p1"}, got)
}

func TestResolveForms(t *testing.T) {
	d := markdown.Parse([]byte(book))
	want, err := d.Resolve("4:1.1.p1")
	require.NoError(t, err)
	require.Equal(t, "First paragraph.", want.Text)
	for _, in := range []string{"4", " 4 ", "4.", "1.1.p1", "1.1p1", "1.1.P1.", "4:1.1.p1", "4:9.9.p9"} {
		it, err := d.Resolve(in)
		require.NoError(t, err, in)
		require.Equal(t, want, it, in)
	}
}

func TestResolveErrorsNameNearestPointers(t *testing.T) {
	d := markdown.Parse([]byte(book))
	tests := []struct {
		in     string
		sentry error
		reason string
	}{
		{"1.1.p99", document.ErrNotFound, "no item has the label 1.1.p99"},
		{"500", document.ErrNotFound, "no item has the ID 500"},
		{"7.3", document.ErrNotFound, "no item has the label 7.3"},
		{"abc", pointer.ErrSyntax, "abc"},
		{"", pointer.ErrSyntax, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := d.Resolve(tt.in)
			require.Error(t, err)
			require.True(t, errors.Is(err, tt.sentry))
			var pe *document.PointerError
			require.True(t, errors.As(err, &pe))
			require.Contains(t, err.Error(), tt.reason)
			require.NotEmpty(t, pe.Nearest)
			for _, p := range pe.Nearest {
				_, err := d.ResolvePointer(p, p.String())
				require.NoError(t, err, "nearest pointers must resolve")
			}
		})
	}
	_, err := d.Resolve("1.1.p99")
	require.Contains(t, err.Error(), "1.1.p")
}

func TestReadAndRange(t *testing.T) {
	d := markdown.Parse([]byte(book))
	items, at, err := d.Read("1.1.p1", 1, 2)
	require.NoError(t, err)
	require.Len(t, items, 4)
	require.Equal(t, 1, at)
	require.Equal(t, "Chapter", items[0].Text)
	_, _, err = d.Read("1.1.p1", -1, 0)
	require.ErrorIs(t, err, document.ErrRange)
	_, _, err = d.Read("1.1.p1", 0, 201)
	require.ErrorIs(t, err, document.ErrRange)
	items, _, err = d.Read("1", 5, 0)
	require.NoError(t, err)
	require.Len(t, items, 1)

	lists, err := d.Range("", 100, func(it *document.Item) bool { return it.Kind == document.ListItem })
	require.NoError(t, err)
	require.Len(t, lists, 7)
	first2, err := d.Range("1.1", 2, nil)
	require.NoError(t, err)
	require.Equal(t, "Chapter", first2[0].Text)
	require.Len(t, first2, 2)
	_, err = d.Range("", 0, nil)
	require.ErrorIs(t, err, document.ErrRange)
}

func TestOutline(t *testing.T) {
	d := markdown.Parse([]byte("pre\n\n# A\n\na1\n\n## A.1\n\nx\n\ny\n\n### A.1.1\n\nz\n\n# B\n\nb1\n"))
	secs, pre := d.Outline()
	require.Equal(t, 1, pre)
	require.Len(t, secs, 2)
	a := secs[0]
	require.Equal(t, "A", a.Heading.Text)
	require.Equal(t, 1, a.Items)
	require.Equal(t, 6, a.Total)
	require.Len(t, a.Children, 1)
	require.Equal(t, 2, a.Children[0].Items)
	require.Equal(t, 4, a.Children[0].Total)
	require.Equal(t, "A.1.1", a.Children[0].Children[0].Heading.Text)
	require.Equal(t, 1, secs[1].Total)
	require.Equal(t, 8, d.SectionEnd(1))
	require.Equal(t, 3, d.SectionEnd(2))
}

func TestKindsAndText(t *testing.T) {
	src := "---\ntitle: x\n---\n\n# *Title*\n\nSome **bold** and [link](http://x) and `code` &amp; text\\!\n\n- item\n\n> quote\n\n```\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n***\n\n<div>\nhtml\n</div>\n\n[^1]: note\n"
	d := markdown.Parse([]byte(src))
	var kinds []document.Kind
	for _, it := range d.Items() {
		kinds = append(kinds, it.Kind)
	}
	require.Equal(t, []document.Kind{document.FrontMatter, document.Heading, document.Paragraph, document.ListItem,
		document.Quote, document.Code, document.Table, document.ThematicBreak, document.HTML, document.FootnoteDef}, kinds)
	require.Equal(t, "Title", d.At(1).Text)
	require.Equal(t, "Some bold and link and code & text!", d.At(2).Text)
	require.Equal(t, "a | b\n1 | 2", d.At(6).Text)
	require.Equal(t, 1, d.At(4).QuoteDepth)
	for _, name := range []string{"paragraph", "LIST_ITEM", "list-item", "Html", "footnote"} {
		_, ok := document.ParseKind(name)
		require.True(t, ok, name)
	}
	_, ok := document.ParseKind("chapter")
	require.False(t, ok)
}

func TestBareNumberThatIsAlsoAHeadingLabel(t *testing.T) {
	d := markdown.Parse([]byte("# One\n\nA.\n\n# Two\n\nB.\n\n# Three\n"))
	// 1:1 heading, 2:1.p1, 3:2 heading, 4:2.p1, 5:3 heading
	tests := []struct {
		in, want, errPart string
		err               error
	}{
		{in: "1", want: "1:1"}, // the ID and the label name the same item
		{in: "2", err: document.ErrAmbiguous, errPart: "the ID 2 names 2:1.p1 and the heading label 2 names 3:2"},
		{in: " 3. ", err: document.ErrAmbiguous, errPart: "the heading label 3 names 5:3"},
		{in: "4", want: "4:2.p1"}, // no heading is labelled 4
		{in: "2:", want: "2:1.p1"},
		{in: "3:2", want: "3:2"},
		{in: "2:1.p1", want: "2:1.p1"},
	}
	for _, tt := range tests {
		it, err := d.Resolve(tt.in)
		if tt.err != nil {
			require.ErrorIs(t, err, tt.err, tt.in)
			require.ErrorContains(t, err, tt.errPart, tt.in)
			var pe *document.PointerError
			require.ErrorAs(t, err, &pe)
			require.Len(t, pe.Nearest, 2, "both candidates are named")
			continue
		}
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.want, it.Pointer().String(), tt.in)
	}

	// A bare number that is no ID but a heading label says so.
	r := markdown.Parse([]byte("# One\n\n# Two\n"))
	require.NoError(t, r.RestoreIDs([]int{10, 11}, 12))
	_, err := r.Resolve("2")
	require.ErrorIs(t, err, document.ErrNotFound)
	require.ErrorContains(t, err, "the label 2 now names 11:2")
}
