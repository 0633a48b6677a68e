package search

import (
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWordTableInternsLikeAMap checks the word table against a map: words
// of every length around the 8- and 16-byte heads, that differ only in
// their last byte or only in length, read from the middle of a text and
// from its very end (where the table cannot read past the word), and
// enough of them to grow the table several times.
func TestWordTableInternsLikeAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var words []string
	for n := range 40 {
		base := strings.Repeat("я", n/2) + strings.Repeat("z", n%2)
		words = append(words, base, base+"a", base+"b", "b"+base)
	}
	for range 5000 {
		var b strings.Builder
		for range 1 + rng.IntN(30) {
			b.WriteByte("abcdefghxyz\xd0\xd1\x80\x00"[rng.IntN(15)])
		}
		words = append(words, b.String())
	}
	var tab wordTable
	tab.init(maphash.MakeSeed(), 4)
	want := map[string]int32{}
	for range 3 {
		for _, w := range words {
			id, ok := want[w]
			if !ok {
				id = int32(len(want))
				want[w] = id
			}
			padded := "pre " + w + " and more than sixteen bytes after it"
			require.Equal(t, id, tab.id(padded, 4, 4+len(w)), "%q inside a text", w)
			require.Equal(t, id, tab.id("x"+w, 1, 1+len(w)), "%q at the end of a text", w)
			require.Equal(t, w, tab.words[id])
		}
	}
	require.Len(t, tab.words, len(want))
}
