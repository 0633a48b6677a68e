package markdown

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
	got, ok := parseParts(src)
	if !ok {
		return false
	}
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
