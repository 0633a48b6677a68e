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
// is) does not move the list's tail, which would make an edit cost
// O(book), nor decode a list still held in the cache's encoding: it is
// kept aside as pending, the items whose entries in the list no longer
// hold and the entries to add. Readers see the list and its pending
// changes merged (postingsOf); they are merged into the list once there
// are more than maxPending, so a change costs O(log list + maxPending)
// plus its share of a merge. (Variables for the tests.)
var (
	longList   = 1024
	maxPending = 256
)

// pending is what a long postings list has not merged yet: dead, the
// items whose entries in the list no longer hold (removed or changed; an
// item the list lacks may be among them), and adds, the entries to add in
// their place or anew; both sorted by item.
type pending struct {
	dead []int32
	adds []posting
}

// merged returns list without the dead items' entries, merged with the
// additions.
func (p *pending) merged(list []posting) []posting {
	out := make([]posting, 0, len(list)+len(p.adds))
	j, k := 0, 0
	for _, q := range list {
		for k < len(p.dead) && p.dead[k] < q.item {
			k++
		}
		if k < len(p.dead) && p.dead[k] == q.item {
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

// kill marks item id's entry in the list dead and drops its addition.
func (p *pending) kill(id int32) {
	if k, ok := slices.BinarySearch(p.dead, id); !ok {
		p.dead = slices.Insert(p.dead, k, id)
	}
	if j, ok := findPosting(p.adds, id); ok {
		p.adds = slices.Delete(p.adds, j, j+1)
	}
}

// findPosting returns the position of item id in a postings list, or where
// it would be inserted, and whether it is there.
func findPosting(list []posting, id int32) (int, bool) {
	return slices.BinarySearchFunc(list, id, func(p posting, id int32) int { return int(p.item - id) })
}

// setPosting sets (inserting if needed) item id's frequency in term t's
// postings.
func (x *Index) setPosting(t termID, id, tf int32) {
	if p := x.pendingFor(t); p != nil {
		p.kill(id)
		j, _ := findPosting(p.adds, id)
		p.adds = slices.Insert(p.adds, j, posting{id, tf})
		x.settle(t, p)
		return
	}
	list := x.ownPostings(t)
	if n := len(list); n == 0 || list[n-1].item < id {
		x.post[t] = append(list, posting{id, tf})
		return
	}
	if i, ok := findPosting(list, id); ok {
		list[i].tf = tf
	} else {
		x.post[t] = slices.Insert(list, i, posting{id, tf})
	}
}

// removePosting removes item id from term t's postings.
func (x *Index) removePosting(t termID, id int32) {
	if p := x.pendingFor(t); p != nil {
		p.kill(id)
		x.settle(t, p)
		return
	}
	list := x.ownPostings(t)
	if i, ok := findPosting(list, id); ok {
		x.post[t] = slices.Delete(list, i, i+1)
	}
}

// pendingFor returns term t's pending changes, made for a long list, or
// nil for a short one, which a change edits in place.
func (x *Index) pendingFor(t termID) *pending {
	if p := x.pend[t]; p != nil {
		return p
	}
	if x.inEncoding(t) && len(x.thawed.rawPostings(t)) < 2*longList || // at least 2 bytes a posting
		!x.inEncoding(t) && len(x.post[t]) < longList {
		return nil
	}
	if x.pend == nil {
		x.pend = map[termID]*pending{}
	}
	p := &pending{}
	x.pend[t] = p
	return p
}

// settle merges term t's pending changes into its list once they are
// many.
func (x *Index) settle(t termID, p *pending) {
	if len(p.dead)+len(p.adds) <= maxPending {
		return
	}
	x.post[t] = p.merged(x.basePostings(t))
	if x.inEncoding(t) {
		x.own[t] = true
	}
	delete(x.pend, t)
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
