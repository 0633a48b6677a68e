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
			x.post[before[i].term] = removePosting(x.ownPostings(before[i].term), id)
			i++
		case i == len(before) || after[j].term < before[i].term:
			x.post[after[j].term] = setPosting(x.ownPostings(after[j].term), id, after[j].tf)
			j++
		default:
			if before[i].tf != after[j].tf {
				x.post[after[j].term] = setPosting(x.ownPostings(after[j].term), id, after[j].tf)
			}
			i++
			j++
		}
	}
}

// findPosting returns the position of item id in a postings list, or where
// it would be inserted, and whether it is there.
func findPosting(list []posting, id int32) (int, bool) {
	return slices.BinarySearchFunc(list, id, func(p posting, id int32) int { return int(p.item - id) })
}

// setPosting sets (inserting if needed) item id's frequency in list.
func setPosting(list []posting, id, tf int32) []posting {
	if n := len(list); n == 0 || list[n-1].item < id {
		return append(list, posting{id, tf})
	}
	i, ok := findPosting(list, id)
	if ok {
		list[i].tf = tf
		return list
	}
	return slices.Insert(list, i, posting{id, tf})
}

// removePosting removes item id from list.
func removePosting(list []posting, id int32) []posting {
	if i, ok := findPosting(list, id); ok {
		return slices.Delete(list, i, i+1)
	}
	return list
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
