package search

import (
	"slices"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// ItemsWithAll returns the IDs of items whose Text contains every one of
// the given stems (AND), sorted by ID. Stems are compared exactly, so pass
// textnorm stems (textnorm.Terms, textnorm.Stem). No stems match nothing,
// like a keyword without words.
func (x *Index) ItemsWithAll(stems []string) []int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.withAll(stemTerms(stems))
}

// ItemsMatching returns the IDs of items matching a keyword list with the
// cursor's semantics (BOOK_CORE § 6): all words of one keyword must occur,
// each in any of its forms (the same stem or a shared name-paradigm key,
// textnorm.Term), and any keyword may (OR across keywords); sorted by ID.
// An item matches iff textnorm.NewMatcher(k).Match(item.Text) holds for
// some keyword k; a keyword without words matches nothing.
func (x *Index) ItemsMatching(keywords []string) []int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []int
	for i, k := range keywords {
		ids := x.withAll(textnorm.QueryTerms(k))
		if i == 0 {
			out = ids
			continue
		}
		out = union(out, ids)
	}
	return out
}

// withAll intersects the postings of the terms, shortest list first.
func (x *Index) withAll(terms []textnorm.Term) []int {
	lists := x.groups(terms)
	if len(lists) == 0 {
		return nil
	}
	slices.SortFunc(lists, func(a, b []posting) int { return len(a) - len(b) })
	pos := make([]int, len(lists))
	var out []int
	for _, p := range lists[0] {
		if inAll(lists[1:], pos[1:], p.item) {
			out = append(out, int(p.item))
		}
	}
	return out
}

// inAll reports whether id is in every list, advancing each list's cursor
// in pos past the items smaller than id (ids are asked in increasing order).
func inAll(lists [][]posting, pos []int, id int32) bool {
	for j, l := range lists {
		i, ok := findPosting(l[pos[j]:], id)
		pos[j] += i
		if !ok {
			return false
		}
	}
	return true
}

// union merges two sorted ID lists without duplicates.
func union(a, b []int) []int {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
