package markdown

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
)

func TestSpecExamplesRoundTripAndInvariants(t *testing.T) {
	ex := specExamples(t)
	require.Len(t, ex, 652)
	for _, e := range ex {
		src := []byte(e.Markdown)
		d := Parse(src)
		if !bytes.Equal(d.Source(), []byte(e.Markdown)) {
			t.Fatalf("example %d: round trip changed the bytes", e.Example)
		}
		if err := checkInvariants(d); err != nil {
			t.Errorf("example %d (%s): %v\n%q", e.Example, e.Section, err, e.Markdown)
		}
	}
}

func TestBooksRoundTripAndInvariants(t *testing.T) {
	for name, src := range books(t) {
		t.Run(name, func(t *testing.T) {
			d := Parse(src)
			require.Equal(t, src, d.Source())
			require.NoError(t, checkInvariants(d))
			require.Greater(t, d.Len(), 300)
			crlf := bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
			dc := Parse(crlf)
			require.Equal(t, crlf, dc.Source())
			require.NoError(t, checkInvariants(dc))
			require.Equal(t, d.Len(), dc.Len(), "CRLF must give the same items")
			for i, it := range d.Items() {
				require.Equal(t, it.Kind, dc.At(i).Kind)
				require.Equal(t, it.Label, dc.At(i).Label)
			}
		})
	}
}

func TestInvalidUTF8AndCRRoundTrip(t *testing.T) {
	for _, src := range []string{
		"# \xff\xfe Title\n\n\xc3\x28 broken \xe2\x82 text\n\n- item \xf0\x28\x8c\xbc\n",
		"# T\r\rlone CR\rlines\r",
		"\x00\x01 control bytes\n\n> quote \xff\n",
	} {
		d := Parse([]byte(src))
		require.Equal(t, src, string(d.Source()))
		require.NoError(t, checkInvariants(d))
		require.Greater(t, d.Len(), 0)
		for _, it := range d.Items() {
			_, err := d.ReplaceText(it.Pointer().String(), "Fixed text.")
			if err == nil {
				require.NoError(t, sameAsReparse(d))
				_, err = d.Undo()
				require.NoError(t, err)
				require.Equal(t, src, string(d.Source()))
			}
		}
	}
}

func TestByteOrderMark(t *testing.T) {
	const b = "\xEF\xBB\xBF"
	tests := []struct {
		name, src string
		kinds     []document.Kind
		first     string // the first item's Markdown
	}{
		{"heading", b + "# Title\n\nText.\n", []document.Kind{document.Heading, document.Paragraph}, "# Title"},
		{"front matter", b + "---\nt: 1\n---\n\n# T\n", []document.Kind{document.FrontMatter, document.Heading}, "---\nt: 1\n---"},
		{"only a mark", b, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse([]byte(tt.src))
			var kinds []document.Kind
			for _, it := range d.Items() {
				kinds = append(kinds, it.Kind)
			}
			require.Equal(t, tt.kinds, kinds)
			if len(kinds) == 0 {
				return
			}
			require.Equal(t, tt.first, d.Markdown(d.Items()[0]))
			res, err := d.ReplaceText(d.Items()[len(kinds)-1].Pointer().String(), "Changed.")
			if kinds[len(kinds)-1] == document.Heading {
				res, err = d.ReplaceText(d.Items()[len(kinds)-1].Pointer().String(), "# Changed")
			}
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(string(d.Source()), b), "the mark stays: %q", d.Source())
			require.Contains(t, string(d.Source()), res.MarkdownAfter)
		})
	}
	d := Parse([]byte(b))
	_, err := d.Append("# First")
	require.NoError(t, err)
	require.Equal(t, b+"# First\n", string(d.Source()))
	require.Equal(t, document.Heading, d.Items()[0].Kind)
}

// The texts of plain blocks taken straight from the source (plainText)
// are the texts built from their inline nodes, on every CommonMark
// example and the books, whether the source is shared or not.
func TestPlainTextsAreTheBuiltOnes(t *testing.T) {
	srcs := map[string][]byte{}
	for name, src := range books(t) {
		srcs[name] = src
	}
	for _, e := range specExamples(t) {
		srcs["example "+strconv.Itoa(e.Example)] = []byte(e.Markdown)
	}
	srcs["plain"] = []byte("# Title\n\nPlain text.\n\nText with a\\* and &amp; and `code`.\n\nTwo\nlines.\n")
	fast := 0
	for name, src := range srcs {
		for _, shared := range []bool{true, false} {
			got, _, _ := parseBlocks(src, 0, nil, shared)
			plainTexts = false
			want, _, _ := parseBlocks(src, 0, nil, shared)
			plainTexts = true
			require.Equal(t, len(want), len(got), name)
			for i := range want {
				require.Equal(t, want[i].Text, got[i].Text, "%s, item %d", name, i)
			}
		}
		b, doc, ok := buildBlocks(src, 0, nil, true)
		require.True(t, ok)
		for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
			if _, ok := b.plainText(n); ok {
				fast++
			}
		}
	}
	require.Greater(t, fast, 1000, "most blocks of the books are plain")
}

// A footnote definition whose lazy continuation lines a table paragraph
// transformer turned into a table: the delimiter row is no node, yet it
// is a line of the definition (the fuzzer's "[^0]:0\n|-"). Every shape
// keeps every line in an item, and every edit of every item keeps
// locality, a full re-parse and undo.
func TestFootnoteFollowedBy(t *testing.T) {
	tests := []struct {
		name, src string
		first     string // the first item's Markdown
	}{
		{"delimiter row, no final newline", "[^0]:0\n|-", "[^0]:0\n|-"},
		{"delimiter row", "[^0]: a\n|-\n\nNext.\n", "[^0]: a\n|-"},
		{"delimiter row with cells", "[^0]: a\n|---|\n", "[^0]: a\n|---|"},
		{"table body", "[^0]: a\n|---|\n|1|\n\nNext.\n", "[^0]: a\n|---|\n|1|"},
		{"CRLF", "[^0]: a\r\n|-\r\n\r\nNext.\r\n", "[^0]: a\r\n|-"},
		{"a row, no delimiter", "[^0]: a\n|a|\n", "[^0]: a\n|a|"},
		{"a paragraph line, then a table", "[^0]: a\nb\n|-\n\nNext.\n", "[^0]: a\nb\n|-"},
		{"a list", "[^0]: a\n- b\n", "[^0]: a"},
		{"indented text", "[^0]: a\n    b\n    |-\n", "[^0]: a\n    b\n    |-"},
		{"an indented table", "[^0]: a\n\n    | x |\n    |---|\n    | 1 |\n", "[^0]: a\n\n    | x |\n    |---|\n    | 1 |"},
		{"in a block quote", "> [^0]: a\n> |-\n>\n> b\n", "> [^0]: a\n> |-"},
		{"in a block quote, lazy", "> [^0]: a\n|-\n", "> [^0]: a\n|-"},
		{"in a list item", "- [^0]: a\n  |-\n- b\n", "- [^0]: a\n  |-"},
		{"in a nested list item", "- x\n  - [^0]: a\n    |---|\n    |1|\n", "- x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			d := Parse(src)
			require.NoError(t, checkInvariants(d))
			require.Equal(t, tt.first, d.Markdown(d.At(0)))
			requireEveryEdit(t, src)
		})
	}
}

// A block under a list item that starts after a tab the item's indent took
// part of: goldmark's Pos counts the tab's remaining columns as bytes, so
// an empty heading (`\t#`) was placed past the end of its own line, the
// line in no item (the fuzzer's "* 0\n\t#\n").
func TestTabPaddedBlockStart(t *testing.T) {
	tests := []struct {
		src, md, text string // the second item's Markdown and text
	}{
		{"* 0\n\t#\n", "\t#", ""},
		{"* 0\n\t# x\n", "\t# x", "x"},
		{"- a\n\n\t#\n\nb\n", "\t#", ""},
		{"- a\n\n\t## x ##\n", "\t## x ##", "x"},
		{"1. a\n\n\t> x\n", "\t> x", "x"},
		{"- a\n\n\t```\n\tc\n\t```\n", "\t```\n\tc\n\t```", "c"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			src := []byte(tt.src)
			d := Parse(src)
			require.NoError(t, checkInvariants(d))
			require.GreaterOrEqual(t, d.Len(), 2)
			require.Equal(t, tt.md, d.Markdown(d.At(1)))
			require.Equal(t, tt.text, d.At(1).Text)
			requireEveryEdit(t, src)
		})
	}
}
