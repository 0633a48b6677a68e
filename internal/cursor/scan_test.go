package cursor

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/testbook"
)

// A keyword cursor without an index scans a big book on every core: it
// walks the items the index names, in the same order, on a parsed and on a
// decoded document (which builds no items for the scan).
func TestScanOnEveryCoreAgreesWithTheIndex(t *testing.T) {
	src := testbook.Sized(t, 4<<20)
	parsed := markdown.Parse(src)
	require.Greater(t, parsed.Len(), 4*scanChunk, "too small a book to scan in parts")
	enc, err := parsed.Encode()
	require.NoError(t, err)
	decoded, err := document.Decode(src, enc, nil)
	require.NoError(t, err)
	x := search.Build(parsed)
	walk := func(d *document.Document, idx KeywordIndex, keywords []string) []int {
		r := NewRegistry(d)
		s := NewSpec(Keyword)
		s.Keywords, s.MaxElements = keywords, 200
		info, err := r.Create(d, s)
		require.NoError(t, err)
		var ids []int
		for {
			p, err := r.Next(d, idx, info.Name)
			require.NoError(t, err)
			for _, it := range p.Items {
				ids = append(ids, it.Pointer.ID)
			}
			if !p.HasMore {
				return ids
			}
		}
	}
	for _, kw := range [][]string{{"Elizabeth"}, {"человек"}, {"Darcy Elizabeth"}, {"Симонов", "Зверков"}} {
		want := walk(parsed, x, kw)
		require.NotEmpty(t, want, kw)
		require.Equal(t, want, walk(parsed, nil, kw), kw)
		require.Equal(t, want, walk(decoded, nil, kw), kw)
	}
}
