package search

import "slices"

// RRFK is the k of reciprocal rank fusion (the value of Cormack et al.,
// used by most hybrid search engines).
const RRFK = 60

// Fuse ranks the items of several ranked lists by reciprocal rank fusion:
// an item's score is the sum over the lists of 1/(RRFK + its rank), ranks
// from 1; an item missing from a list adds nothing. Results come best
// first (ties in document order), at most limit of them, each taken from
// the first list that has the item (so a keyword list first keeps its
// snippet with the matches marked), with Score the fused score and
// Matches summed.
func Fuse(limit int, lists ...[]Result) []Result {
	scores := map[int]float64{}
	first := map[int]Result{}
	matches := map[int]int{}
	var order []int
	for _, l := range lists {
		for rank, r := range l {
			if _, ok := first[r.ID]; !ok {
				first[r.ID] = r
				order = append(order, r.ID)
			}
			scores[r.ID] += 1 / float64(RRFK+rank+1)
			matches[r.ID] += r.Matches
		}
	}
	out := make([]Result, len(order))
	for i, id := range order {
		out[i] = first[id]
		out[i].Score, out[i].Matches = scores[id], matches[id]
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.Index - b.Index
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
