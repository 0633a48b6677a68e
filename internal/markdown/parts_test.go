package markdown

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/testbook"
)

// smallParts cuts texts into parts of about n bytes for the test.
func smallParts(t testing.TB, n int) {
	old, oldMin := partSize, minParallel
	partSize, minParallel = n, 2*n
	t.Cleanup(func() { partSize, minParallel = old, oldMin })
}

// sameAsWhole checks that src parsed in parts gives the items and tops of
// src parsed whole, and reports whether it was parsed in parts.
func sameAsWhole(t testing.TB, src []byte) bool {
	t.Helper()
	got, each, ok := parseParts(src, eachSeen)
	if !ok {
		return false
	}
	checkEach(t, src, got.Items, each)
	want := (&Parser{}).ParseRegion(src, 0, len(src))
	require.Equal(t, len(want.Items), len(got.Items), "items")
	for i := range want.Items {
		if !reflect.DeepEqual(want.Items[i], got.Items[i]) {
			t.Fatalf("item %d differs:\nwhole %+v\nparts %+v\nsource %q", i, want.Items[i], got.Items[i], src)
		}
	}
	require.Equal(t, want.Tops, got.Tops)
	return true
}

// seenPart is what eachSeen saw of a part.
type seenPart struct {
	start, end int
	items      []*document.Item
}

func eachSeen(part []byte, start int, items []*document.Item) seenPart {
	return seenPart{start: start, end: start + len(part), items: items}
}

// checkEach checks that the parts ParseEach handed out cover src exactly,
// in order, each with the items that lie in it.
func checkEach(t testing.TB, src []byte, items []*document.Item, parts []seenPart) {
	t.Helper()
	require.NotEmpty(t, parts)
	at, i := 0, 0
	for k, p := range parts {
		require.Equal(t, at, p.start, "part %d starts where the one before ends", k)
		require.LessOrEqual(t, p.start, p.end, "part %d", k)
		for _, it := range p.items {
			require.Same(t, items[i], it, "item %d in part %d", i, k)
			require.True(t, it.Start() >= p.start && it.End() <= p.end, "item %d [%d,%d) lies in part %d [%d,%d)", i, it.Start(), it.End(), k, p.start, p.end)
			i++
		}
		at = p.end
	}
	require.Equal(t, len(src), at, "the parts end where the source does")
	require.Equal(t, len(items), i, "every item is in a part")
}

// ParseEach hands out parts that cover the book, with its items: a book
// parsed in parts, one parsed whole because of a link reference
// definition (cut between items, on every processor when it is big), and
// small and empty ones.
func TestParseEach(t *testing.T) {
	novel := testbook.Sized(t, testbook.NovelSize)
	withRefs := append(append([]byte(nil), novel...), "\n[ref]: https://example.com\n"...)
	for name, src := range map[string][]byte{"novel": novel, "with refs": withRefs, "small": []byte("# A\n\ntext\n"),
		"empty": nil, "no items": []byte("\n\n\n"), "front matter": []byte("---\nx: 1\n---\n# A\n")} {
		t.Run(name, func(t *testing.T) {
			d, parts := ParseEach(src, eachSeen)
			checkEach(t, src, d.Items(), parts)
			if len(src) >= minParallel {
				require.GreaterOrEqual(t, len(parts), min(2, runtime.GOMAXPROCS(0)), "a big book is handed out in parts")
			}
			sameDocument(t, Parse(src), d)
		})
	}
}

func TestPartsOfTheNovel(t *testing.T) {
	src := testbook.Sized(t, 2*testbook.NovelSize)
	require.True(t, sameAsWhole(t, src), "the novel is parsed in parts")
	require.Greater(t, len(cuts(src)), 10)
}

// Every CommonMark example, between headings, cut at every heading: the
// parts agree with the whole, or the cut is refused.
func TestPartsOfSpecExamples(t *testing.T) {
	smallParts(t, 1)
	var b strings.Builder
	for _, e := range specExamples(t) {
		fmt.Fprintf(&b, "# Example %d\n\n%s\n\n", e.Example, e.Markdown)
	}
	all := []byte(b.String())
	require.False(t, sameAsWhole(t, all), "some example has a link reference definition")
	parted := 0
	for _, e := range specExamples(t) {
		src := []byte(fmt.Sprintf("# Before\n\nText.\n\n%s\n\n# After %d\n\nMore.\n\n## End\n", e.Markdown, e.Example))
		if sameAsWhole(t, src) {
			parted++
		}
	}
	require.Greater(t, parted, 500, "most examples are parsed in parts")
}

// A cut inside a fenced code block or an HTML block that runs to its
// marker is never taken: the book is parsed whole.
func TestPartsRefuseOpenBlocks(t *testing.T) {
	smallParts(t, 1)
	for _, src := range []string{
		"# A\n\n```\ncode\n\n# not a heading\n\n```\n\n# B\n\ntext\n",
		"# A\n\n````\n```\n\n# not a heading\n\n````\n\n# B\n",
		"# A\n\n<!--\n\n# not a heading\n\n-->\n\n# B\n",
		"# A\n\n<pre>\n\n# not a heading\n\n</pre>\n\n# B\n",
		"# A\n\n- item\n\n  ```\n  code\n\n# heading after the list\n\ntext\n",
		"# A\n\n> quote\n\n# B\n\n- a\n- b\n\n# C\n\n    indented\n\n# D\n",
		"---\ntitle: x\n---\n\n# A\n\ntext\n\n# B\n\ntext\n",
		"\xef\xbb\xbf# A\n\ntext\n\n# B\n\ntext\r\n\r\n# C\r\n",
	} {
		sameAsWhole(t, []byte(src))
	}
	require.False(t, sameAsWhole(t, []byte("# A\n\n```\ncode\n\n# not a heading\n\n```\n\n# B\n\ntext\n")))
}

func FuzzParts(f *testing.F) {
	f.Add("# A\n\ntext\n\n# B\n\n```\nx\n\n# C\n")
	f.Add("# A\n\n- a\n\n# B\n\n> q\n\n# C\n")
	f.Fuzz(func(t *testing.T, src string) {
		smallParts(t, 1)
		sameAsWhole(t, []byte(src))
	})
}
