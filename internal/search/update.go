package search

import (
	"slices"

	"github.com/aitexteditor/aite/internal/document"
)

// reindex brings one item ID in step with d: removed if d no longer has
// it, (re-)indexed if its Text differs from the indexed one. Only the
// postings of terms whose frequency changed are touched.
func (x *Index) reindex(d *document.Document, id int) {
	if id <= 0 {
		return
	}
	old := x.entryOf(id)
	it := d.ByID(id)
	if it == nil && !old.live || it != nil && old.live && old.text == it.Text {
		return
	}
	var before, after []termFreq
	if old.live {
		before, _ = x.lex.tfs(old.text)
	}
	e := entry{}
	if it != nil {
		after, e.dl = x.lex.tfs(it.Text)
		e.text, e.live = it.Text, true
		x.growPost()
	}
	x.applyDiff(int32(id), before, after)
	x.setEntry(id, e)
}

// applyDiff changes the postings of item id from the term frequencies
// before to after (both sorted by term).
func (x *Index) applyDiff(id int32, before, after []termFreq) {
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || i < len(before) && before[i].term < after[j].term:
			x.removePosting(before[i].term, id)
			i++
		case i == len(before) || after[j].term < before[i].term:
			x.setPosting(after[j].term, id, after[j].tf)
			j++
		default:
			if before[i].tf != after[j].tf {
				x.setPosting(after[j].term, id, after[j].tf)
			}
			i++
			j++
		}
	}
}

// A change to a long postings list (a common word's: as long as the book
// is) is not made by moving the list's tail, which would make an edit cost
// O(book): a removed item is marked in place (tf 0, a tombstone) and an
// item inserted before the list's end goes to a short sorted list of
// additions. Readers see the two merged (postingsOf); the merge is written
// back when the additions pass maxAdds or the tombstones an eighth of the
// list, so a change costs O(log list + maxAdds) plus its share of a merge.
// (Variables for the tests.)
var (
	longList = 1024
	maxAdds  = 256
)

// pending is what a long postings list has not merged yet: its additions
// (sorted by item, none of them in the list) and its number of tombstones.
type pending struct {
	adds []posting
	dead int
}

// merged returns list without its tombstones, merged with p's additions.
func (p *pending) merged(list []posting) []posting {
	out := make([]posting, 0, len(list)-p.dead+len(p.adds))
	j := 0
	for _, q := range list {
		if q.tf == 0 {
			continue
		}
		for j < len(p.adds) && p.adds[j].item < q.item {
			out = append(out, p.adds[j])
			j++
		}
		out = append(out, q)
	}
	return append(out, p.adds[j:]...)
}

// findPosting returns the position of item id in a postings list, or where
// it would be inserted, and whether it is there.
func findPosting(list []posting, id int32) (int, bool) {
	return slices.BinarySearchFunc(list, id, func(p posting, id int32) int { return int(p.item - id) })
}

// setPosting sets (inserting if needed) item id's frequency in term t's
// postings.
func (x *Index) setPosting(t termID, id, tf int32) {
	list := x.ownPostings(t)
	if n := len(list); n == 0 || list[n-1].item < id {
		x.post[t] = append(list, posting{id, tf})
		return
	}
	p := x.pend[t]
	i, ok := findPosting(list, id)
	switch {
	case ok:
		if list[i].tf == 0 {
			p.dead--
		}
		list[i].tf = tf
	case p == nil && len(list) < longList:
		x.post[t] = slices.Insert(list, i, posting{id, tf})
		return
	default:
		p = x.pendOf(t)
		if j, ok := findPosting(p.adds, id); ok {
			p.adds[j].tf = tf
		} else {
			p.adds = slices.Insert(p.adds, j, posting{id, tf})
		}
	}
	x.settle(t)
}

// removePosting removes item id from term t's postings.
func (x *Index) removePosting(t termID, id int32) {
	list := x.ownPostings(t)
	p := x.pend[t]
	i, ok := findPosting(list, id)
	switch {
	case ok && p == nil && len(list) < longList:
		x.post[t] = slices.Delete(list, i, i+1)
		return
	case ok && list[i].tf != 0:
		p = x.pendOf(t)
		list[i].tf = 0
		p.dead++
	case !ok && p != nil:
		if j, ok := findPosting(p.adds, id); ok {
			p.adds = slices.Delete(p.adds, j, j+1)
		}
	}
	x.settle(t)
}

// pendOf returns term t's pending changes, making them.
func (x *Index) pendOf(t termID) *pending {
	p := x.pend[t]
	if p == nil {
		if x.pend == nil {
			x.pend = map[termID]*pending{}
		}
		p = &pending{}
		x.pend[t] = p
	}
	return p
}

// settle writes term t's pending changes into its list when they are
// many, and forgets them when there are none.
func (x *Index) settle(t termID) {
	p := x.pend[t]
	if p == nil {
		return
	}
	if len(p.adds) > maxAdds || p.dead > len(x.post[t])/8 {
		x.post[t] = p.merged(x.post[t])
		p.adds, p.dead = nil, 0
	}
	if len(p.adds) == 0 && p.dead == 0 {
		delete(x.pend, t)
	}
}

// isFresh reports whether x reflects d as it is now. Caller holds a lock.
func (x *Index) isFresh(d *document.Document) bool {
	return x.doc == d && x.version == d.Version()
}

// rlockFresh takes the read lock on an index that reflects d, first
// bringing a stale index up to date under the write lock.
func (x *Index) rlockFresh(d *document.Document) {
	x.mu.RLock()
	if x.isFresh(d) {
		return
	}
	x.mu.RUnlock()
	x.mu.Lock()
	if !x.isFresh(d) {
		x.resync(d)
	}
	x.mu.Unlock()
	x.mu.RLock()
}

// resync brings a stale index up to date without knowing which items
// changed: every item whose Text differs from the indexed one is
// re-indexed and items gone from d are removed, which yields exactly the
// index Build(d) would. A different document (or a decoded index of a
// version before) is simply rebuilt. Comparing
// the texts is cheap: an unchanged item shares its Text string with the
// index, so the comparison stops at the pointer.
func (x *Index) resync(d *document.Document) {
	if x.lost(d) {
		x.rebuild(d)
		return
	}
	x.thaw()
	for _, it := range d.Items() {
		x.reindex(d, it.ID)
	}
	if x.nItems != d.Len() {
		for id := range x.items {
			if x.items[id].live && d.ByID(id) == nil {
				x.reindex(d, id)
			}
		}
	}
	x.version = d.Version()
}

// growPost gives every interned term a postings list.
func (x *Index) growPost() {
	if n := len(x.lex.stems); n > len(x.post) {
		x.post = append(x.post, make([][]posting, n-len(x.post))...)
	}
}
