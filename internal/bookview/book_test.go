package bookview

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/markdown"
)

// TestNextBuildsTheIndexOnlyForKeywords: walking a cursor without keywords
// never builds the search index (it costs about a parse); a keyword cursor
// builds it once.
func TestNextBuildsTheIndexOnlyForKeywords(t *testing.T) {
	d := markdown.Parse([]byte("# Часы\n\nВаря смотрела на часы.\n\nПрофессор молчал.\n"))
	b := New(d, nil)
	for _, spec := range []cursor.Spec{cursor.NewSpec(cursor.FullScan), func() cursor.Spec {
		s := cursor.NewSpec(cursor.Filtered)
		s.Regex = "^Варя"
		return s
	}()} {
		info, err := b.CreateCursor(spec)
		require.NoError(t, err)
		_, err = b.Next(info.Name)
		require.NoError(t, err)
		require.Nil(t, b.Index(), "%s: no index built", spec.Type)
	}
	s := cursor.NewSpec(cursor.Keyword)
	s.Keywords = []string{"часы"}
	info, err := b.CreateCursor(s)
	require.NoError(t, err)
	p, err := b.Next(info.Name)
	require.NoError(t, err)
	require.Len(t, p.Items, 2, "the heading and the paragraph")
	require.NotNil(t, b.Index(), "a keyword cursor builds the index")
}
