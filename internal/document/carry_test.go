package document

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// hashesOf maps letters to hashes: "abca" → four items, the first and the
// last with the same content.
func hashesOf(s string) []uint64 {
	out := make([]uint64, len(s))
	for i := range s {
		out[i] = uint64(s[i])
	}
	return out
}

func TestCarryIDs(t *testing.T) {
	tests := []struct {
		name     string
		old      string
		oldIDs   []int
		next     int
		new      string
		want     []int
		wantNext int
	}{
		{"unchanged", "abcd", []int{1, 2, 3, 4}, 5, "abcd", []int{1, 2, 3, 4}, 5},
		{"insert in the middle", "abcd", []int{1, 2, 3, 4}, 5, "abXcd", []int{1, 2, 5, 3, 4}, 6},
		{"insert at the start", "abcd", []int{1, 2, 3, 4}, 5, "Xabcd", []int{5, 1, 2, 3, 4}, 6},
		{"delete", "abcd", []int{1, 2, 3, 4}, 5, "acd", []int{1, 3, 4}, 5},
		{"rewrite one", "abcd", []int{1, 2, 3, 4}, 5, "aBcd", []int{1, 5, 3, 4}, 6},
		{"IDs out of order survive", "abcd", []int{1, 7, 2, 3}, 9, "abXcd", []int{1, 7, 9, 2, 3}, 10},
		{"a moved item keeps its ID", "abcdef", []int{1, 2, 3, 4, 5, 6}, 7, "acdebf", []int{1, 3, 4, 5, 2, 6}, 7},
		{"repeated contents align in order", "a-b-c", []int{1, 2, 3, 4, 5}, 6, "a-b-X-c", []int{1, 2, 3, 4, 6, 7, 5}, 8},
		{"deleted repeated content", "a-b-c", []int{1, 2, 3, 4, 5}, 6, "a-c", []int{1, 2, 5}, 6},
		{"everything new", "abc", []int{1, 2, 3}, 4, "XYZ", []int{4, 5, 6}, 7},
		{"from empty", "", nil, 1, "ab", []int{1, 2}, 3},
		{"to empty", "ab", []int{1, 2}, 3, "", []int{}, 3},
		{"swap of two unique items", "abcd", []int{1, 2, 3, 4}, 5, "acbd", []int{1, 3, 2, 4}, 5},
		{"duplicates moved are not guessed", "axxb", []int{1, 2, 3, 4}, 5, "xabx", []int{5, 1, 4, 6}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, next := CarryIDs(tt.oldIDs, hashesOf(tt.old), hashesOf(tt.new), tt.next)
			require.Equal(t, tt.want, ids)
			require.Equal(t, tt.wantNext, next)
		})
	}
}

// TestCarryIDsNeverMisnames checks on random edits of random books that an
// ID kept names an item of the same content, IDs stay unique, new ones are
// fresh, and an unchanged book keeps all its IDs.
func TestCarryIDsNeverMisnames(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 2000; round++ {
		n := r.IntN(60)
		old := make([]uint64, n)
		for i := range old {
			old[i] = uint64(r.IntN(12)) // many repeats
		}
		ids := make([]int, n)
		for i := range ids {
			ids[i] = i + 1
		}
		r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		next := n + 1 + r.IntN(5)
		cur := slices.Clone(old)
		for k := r.IntN(6); k > 0 && len(cur) > 0; k-- {
			i := r.IntN(len(cur))
			switch r.IntN(4) {
			case 0:
				cur = slices.Delete(cur, i, i+1)
			case 1:
				cur = slices.Insert(cur, i, uint64(100+r.IntN(20)))
			case 2:
				cur[i] = uint64(r.IntN(12))
			case 3: // move
				h := cur[i]
				cur = slices.Delete(cur, i, i+1)
				j := r.IntN(len(cur) + 1)
				cur = slices.Insert(cur, j, h)
			}
		}
		got, gotNext := CarryIDs(ids, old, cur, next)
		require.Len(t, got, len(cur))
		hashOf := map[int]uint64{}
		for i, id := range ids {
			hashOf[id] = old[i]
		}
		seen := map[int]bool{}
		fresh := 0
		for j, id := range got {
			require.False(t, seen[id], "round %d: ID %d twice", round, id)
			seen[id] = true
			if h, ok := hashOf[id]; ok {
				require.Equal(t, h, cur[j], "round %d: ID %d names other content", round, id)
			} else {
				require.GreaterOrEqual(t, id, next, "round %d: a new ID below next", round)
				fresh++
			}
		}
		require.Equal(t, next+fresh, gotNext)
		same, _ := CarryIDs(ids, old, old, next)
		require.Equal(t, ids, same)
	}
}

// The four-lane hashing gives exactly ItemHash of every item, whatever
// the lengths (empty items, one long item, lanes running out at once).
func TestHashEach(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	src := make([]byte, 1<<16)
	for i := range src {
		src[i] = byte(r.IntN(256))
	}
	for n := range 60 {
		for _, maxLen := range []int{0, 1, 3, 50, 700} {
			items := make([]*Item, n)
			for i := range items {
				start := r.IntN(len(src) - maxLen)
				items[i] = &Item{start: start, end: start + r.IntN(maxLen+1)}
			}
			if n > 0 && maxLen > 0 {
				items[r.IntN(n)] = &Item{start: 0, end: 9000} // one long item
			}
			got := HashItems(src, items)
			for i, it := range items {
				require.Equal(t, ItemHash(src[it.Start():it.End()]), got[i], "n %d, max %d, item %d", n, maxLen, i)
			}
		}
	}
}
