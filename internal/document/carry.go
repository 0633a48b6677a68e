package document

import (
	"slices"
)

// ItemHash is the content hash of an item's Markdown bytes (64-bit FNV-1a):
// what a record of a book's IDs keeps per item to recognise the item in a
// later version of the file.
func ItemHash(markdown []byte) uint64 { return hashOn(fnvOffset, markdown) }

// The 64-bit FNV-1a parameters (hash/fnv's New64a, written out inline:
// the hash of every item of a big book is computed on every write).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// ItemHashes returns ItemHash of every item, in document order.
func (d *Document) ItemHashes() []uint64 {
	out := make([]uint64, d.Len())
	hashEach(out, func(i int) []byte {
		if d.lazy != nil {
			_, start, end, _, _ := d.lazy.rec(i)
			if start > end || end > d.text.Len() {
				panic(corrupt("item %d spans %d..%d of %d bytes", i, start, end, d.text.Len()))
			}
			return d.text.Slice(start, end)
		}
		return d.MarkdownBytes(d.at(i))
	})
	return out
}

// HashItems returns ItemHash of each of items, whose Markdown is
// src[Start:End] (a parsed region's items: what a parser can hash as it
// goes, before the document is made).
func HashItems(src []byte, items []*Item) []uint64 {
	out := make([]uint64, len(items))
	hashEach(out, func(i int) []byte { return src[items[i].Start():items[i].End()] })
	return out
}

// hashEach sets out[i] to ItemHash(md(i)) for every i. FNV-1a does one
// multiplication per byte, each waiting for the one before, so a
// processor that could start a multiplication every cycle mostly waits:
// four lanes, each hashing its own run of items, keep four in flight and
// give the same hashes in about a third of the time.
func hashEach(out []uint64, md func(i int) []byte) {
	const lanes = 4
	n := len(out)
	if n < 4*lanes {
		for i := range out {
			out[i] = ItemHash(md(i))
		}
		return
	}
	// Lane l hashes items next[l] up to stop[l]: runs of about a quarter
	// of the bytes each.
	total := 0
	for i := range n {
		total += len(md(i))
	}
	var next, stop [lanes]int
	for l, i, acc := 0, 0, 0; l < lanes; l++ {
		next[l] = i
		for i < n && (l == lanes-1 || acc < (l+1)*total/lanes) {
			acc += len(md(i))
			i++
		}
		stop[l] = i
	}
	var h [lanes]uint64
	var b [lanes][]byte
	var at [lanes]int    // the item lane l hashes ...
	var live [lanes]bool // ... if it has one left
	// advance finishes the items of lane l that have no bytes left and
	// starts its next one, and reports whether the lane has one.
	advance := func(l int) bool {
		for live[l] && len(b[l]) == 0 {
			out[at[l]] = h[l]
			live[l] = next[l] < stop[l]
			if live[l] {
				at[l], b[l], h[l] = next[l], md(next[l]), fnvOffset
				next[l]++
			}
		}
		return live[l]
	}
	all := true
	for l := range lanes {
		if live[l] = next[l] < stop[l]; live[l] {
			at[l], b[l], h[l] = next[l], md(next[l]), fnvOffset
			next[l]++
		}
		all = advance(l) && all
	}
	for all {
		m := min(len(b[0]), len(b[1]), len(b[2]), len(b[3]))
		b0, b1, b2, b3 := b[0][:m], b[1][:m], b[2][:m], b[3][:m]
		h0, h1, h2, h3 := h[0], h[1], h[2], h[3]
		for j := range b0 {
			h0 = (h0 ^ uint64(b0[j])) * fnvPrime
			h1 = (h1 ^ uint64(b1[j])) * fnvPrime
			h2 = (h2 ^ uint64(b2[j])) * fnvPrime
			h3 = (h3 ^ uint64(b3[j])) * fnvPrime
		}
		h = [lanes]uint64{h0, h1, h2, h3}
		for l := range lanes {
			b[l] = b[l][m:]
			all = advance(l) && all
		}
	}
	// A lane ran out of items: the others finish alone.
	for l := range lanes {
		if live[l] {
			out[at[l]] = hashOn(h[l], b[l])
		}
		for i := next[l]; i < stop[l]; i++ {
			out[i] = ItemHash(md(i))
		}
	}
}

// hashOn continues an FNV-1a hash h over b.
func hashOn(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// maxGapCells bounds the table of the exact longest-common-subsequence
// match of one gap between anchors; a larger gap keeps only its common
// prefix and suffix (and moved items), which is always safe: an item left
// unmatched only gets a new ID.
const maxGapCells = 1 << 22

// CarryIDs numbers the items of a new version of a book from a record of an
// older version: oldIDs and oldHashes (ItemHash per item, in document order)
// and next, the first ID never used. Items are matched by content in order
// (the common prefix and suffix, then items whose content occurs once on
// each side, then an exact longest common subsequence between those
// anchors); an item whose content moved elsewhere unchanged is matched too
// when its content is unique. A matched item keeps its old ID; every other
// item (new or rewritten) gets a fresh ID from next on, so no ID ever names
// another item than it did. It returns the IDs in document order and the
// new next. The old record is trusted to be consistent (equal lengths,
// unique IDs below next); nothing is changed in place.
func CarryIDs(oldIDs []int, oldHashes, newHashes []uint64, next int) ([]int, int) {
	match := make([]int, len(newHashes)) // new index → old index + 1, 0 unmatched
	a := aligner{old: oldHashes, new: newHashes, match: match}
	a.align(0, len(oldHashes), 0, len(newHashes))
	a.moves()
	ids := make([]int, len(newHashes))
	for j, m := range match {
		if m > 0 {
			ids[j] = oldIDs[m-1]
			continue
		}
		ids[j] = next
		next++
	}
	return ids, next
}

type aligner struct {
	old, new []uint64
	match    []int
}

func (a *aligner) pair(i, j int) { a.match[j] = i + 1 }

// align matches old[i0:i1] with new[j0:j1].
func (a *aligner) align(i0, i1, j0, j1 int) {
	for i0 < i1 && j0 < j1 && a.old[i0] == a.new[j0] {
		a.pair(i0, j0)
		i0, j0 = i0+1, j0+1
	}
	for i0 < i1 && j0 < j1 && a.old[i1-1] == a.new[j1-1] {
		a.pair(i1-1, j1-1)
		i1, j1 = i1-1, j1-1
	}
	if i0 == i1 || j0 == j1 {
		return
	}
	anchors := a.uniqueAnchors(i0, i1, j0, j1)
	if len(anchors) == 0 {
		a.lcs(i0, i1, j0, j1)
		return
	}
	pi, pj := i0, j0
	for _, an := range anchors {
		a.align(pi, an[0], pj, an[1])
		a.pair(an[0], an[1])
		pi, pj = an[0]+1, an[1]+1
	}
	a.align(pi, i1, pj, j1)
}

// uniqueAnchors returns the pairs (i, j) of contents that occur exactly once
// in old[i0:i1] and once in new[j0:j1], reduced to the longest chain
// increasing on both sides (patience diff).
func (a *aligner) uniqueAnchors(i0, i1, j0, j1 int) [][2]int {
	type seen struct{ i, j, no, nn int }
	m := map[uint64]*seen{}
	for i := i0; i < i1; i++ {
		s := m[a.old[i]]
		if s == nil {
			s = &seen{}
			m[a.old[i]] = s
		}
		s.i, s.no = i, s.no+1
	}
	var pairs [][2]int
	for j := j0; j < j1; j++ {
		if s := m[a.new[j]]; s != nil {
			s.j, s.nn = j, s.nn+1
		}
	}
	for j := j0; j < j1; j++ {
		if s := m[a.new[j]]; s != nil && s.no == 1 && s.nn == 1 {
			pairs = append(pairs, [2]int{s.i, j})
		}
	}
	return increasing(pairs)
}

// increasing returns the longest subsequence of pairs (ordered by j) whose
// i also increase.
func increasing(pairs [][2]int) [][2]int {
	if len(pairs) == 0 {
		return nil
	}
	tails := []int{}                // tails[k]: index into pairs ending a chain of length k+1
	prev := make([]int, len(pairs)) // predecessor in the chain
	for p := range pairs {
		k, _ := slices.BinarySearchFunc(tails, pairs[p][0], func(t, i int) int { return pairs[t][0] - i })
		prev[p] = -1
		if k > 0 {
			prev[p] = tails[k-1]
		}
		if k == len(tails) {
			tails = append(tails, p)
		} else {
			tails[k] = p
		}
	}
	out := make([][2]int, len(tails))
	for k, p := len(tails)-1, tails[len(tails)-1]; k >= 0; k, p = k-1, prev[p] {
		out[k] = pairs[p]
	}
	return out
}

// lcs matches an exact longest common subsequence of old[i0:i1] and
// new[j0:j1] when the table is small enough.
func (a *aligner) lcs(i0, i1, j0, j1 int) {
	n, m := i1-i0, j1-j0
	if n*m > maxGapCells {
		return
	}
	w := m + 1
	t := make([]int32, (n+1)*w) // t[i*w+j]: LCS of old[i0+i:] and new[j0+j:]
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a.old[i0+i] == a.new[j0+j]:
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a.old[i0+i] == a.new[j0+j]:
			a.pair(i0+i, j0+j)
			i, j = i+1, j+1
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
}

// moves matches the unmatched new items whose content occurs exactly once
// among the unmatched old items and once among the unmatched new ones: an
// item moved elsewhere without a change keeps its ID.
func (a *aligner) moves() {
	used := make([]bool, len(a.old))
	for _, m := range a.match {
		if m > 0 {
			used[m-1] = true
		}
	}
	type count struct{ i, no, nn int }
	c := map[uint64]*count{}
	for i, h := range a.old {
		if !used[i] {
			if c[h] == nil {
				c[h] = &count{}
			}
			c[h].i, c[h].no = i, c[h].no+1
		}
	}
	for j, h := range a.new {
		if a.match[j] == 0 && c[h] != nil {
			c[h].nn++
		}
	}
	for j, h := range a.new {
		if k := c[h]; a.match[j] == 0 && k != nil && k.no == 1 && k.nn == 1 {
			a.pair(k.i, j)
		}
	}
}
