package search

import (
	"sync"

	"github.com/aitexteditor/aite/internal/document"
)

// termID identifies a distinct stem of the index.
type termID = int32

// posting records that an item holds a term tf times.
type posting struct {
	item int32 // item ID
	tf   int32
}

// entry is what the index knows about one item.
type entry struct {
	text string // the indexed Text (the document's own string, not a copy)
	dl   int32  // document length: the number of words of text
	live bool
}

// Index is an inverted index over the Text of a document's items, for one
// document version. Build makes one; Update keeps it in step with edits.
//
// An Index is not safe for concurrent mutation: an edit of the document
// and the Update that follows it must not overlap any other use of the
// document or its index (callers serialise them under their own lock, as
// a Document is not safe for concurrent use either). Concurrent read-only
// calls (ItemsWithAll, ItemsMatching, Ranked, Exact, Version) are safe,
// also on a stale index: the one read path that mutates, bringing a stale
// index up to date, runs under the index's internal write lock.
type Index struct {
	mu      sync.RWMutex
	doc     *document.Document
	version int
	lex     lexicon
	post    [][]posting // term → postings, sorted by item ID
	// pend holds the changes not yet merged into a long postings list
	// (update.go): post[t] (or its encoding) leaves them out, so a term's
	// postings are read through postingsOf.
	pend   map[termID]*pending
	items  []entry // by item ID
	nItems int     // live items
	total  int64   // sum of dl over live items
	// fz, when set, is the encoding a decoded index answers from; lex,
	// post and items are unset until thaw (frozen.go).
	fz *frozenIndex
	// thawed, when set, is the encoding a thawed index was decoded from:
	// the postings of a term no change has touched (own false) are still
	// read from it, so an edit decodes only the postings it changes.
	thawed *frozenIndex
	own    []bool
}

// Build indexes every item of d.
func Build(d *document.Document) *Index {
	x := &Index{}
	x.rebuild(d)
	return x
}

// Version returns the d.Version() the index reflects.
func (x *Index) Version() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.version
}

// Update re-indexes the items with the given IDs (changed, inserted or
// deleted: an ID the document no longer has is removed) and records
// d.Version(). The cost is that of analysing those items plus, for each
// term an item gains or loses, a shift of that term's postings (a memmove);
// the rest of the book is not read. IDs of unchanged items are harmless.
// An Index built from another document (or the zero Index) is rebuilt, and
// so is a decoded one whose document changed since (it reads the texts of
// its items from the document, so the texts before are gone): to keep a
// decoded index up to date, Update it (with no IDs) before changing its
// document.
func (x *Index) Update(d *document.Document, ids ...int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.lost(d) {
		x.rebuild(d)
		return
	}
	x.thaw()
	for _, id := range ids {
		x.reindex(d, id)
	}
	x.doc, x.version = d, d.Version()
}

// lost reports whether the index cannot be brought up to date with d: it
// was made of another document (or is the zero Index), or it answers from
// its encoding and d changed since. The caller holds a lock.
func (x *Index) lost(d *document.Document) bool {
	return x.doc != d || x.fz != nil && x.version != d.Version()
}

// setEntry stores an item's entry, keeping nItems and total up to date.
func (x *Index) setEntry(id int, e entry) {
	if id >= len(x.items) {
		x.items = append(x.items, make([]entry, id+1-len(x.items))...)
	}
	if old := x.items[id]; old.live {
		x.nItems--
		x.total -= int64(old.dl)
	}
	if e.live {
		x.nItems++
		x.total += int64(e.dl)
	}
	x.items[id] = e
}

// entryOf returns the entry of an item ID (zero if never indexed).
func (x *Index) entryOf(id int) entry {
	if id <= 0 || id >= len(x.items) {
		return entry{}
	}
	return x.items[id]
}

// avgdl returns the mean document length of the live items.
func (x *Index) avgdl() float64 {
	if x.nItems == 0 {
		return 0
	}
	return float64(x.total) / float64(x.nItems)
}
