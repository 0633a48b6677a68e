package search

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
)

// bestHits, the one top-k of the keyword ranking and the search by
// meaning: the k best hits, best first, a tie going to the earlier item.
func TestBestHits(t *testing.T) {
	items := make([]*document.Item, 8)
	for i := range items {
		items[i] = &document.Item{}
		items[i].SetIndex(i)
	}
	scores := []float64{0.5, 0.9, 0.1, 0.9, 0.7, 0.2, 0.7, 0.3}
	top := &bestHits{k: 4}
	for i, s := range scores {
		top.add(hit{it: items[i], score: s})
	}
	var got []int
	for _, h := range top.sorted() {
		got = append(got, h.it.Index())
	}
	require.Equal(t, []int{1, 3, 4, 6}, got)

	few := &bestHits{k: 10}
	few.add(hit{it: items[2], score: 1})
	few.add(hit{it: items[0], score: 1})
	require.Len(t, few.sorted(), 2)
	require.Equal(t, 0, few.sorted()[0].it.Index())
}
