package document

import (
	"fmt"
	"math"
)

// ItemIDs returns the IDs of the items in document order and the ID the next
// new item will get. Together with the source they are everything needed to
// rebuild the document with the same pointers (RestoreIDs): new items take
// next, and IDs below next that are not in ids belonged to deleted items.
func (d *Document) ItemIDs() (ids []int, next int) {
	ids = make([]int, d.Len())
	for i := range ids {
		if d.lazy != nil {
			ids[i], _, _, _, _ = d.lazy.rec(i)
		} else {
			ids[i] = d.at(i).ID
		}
	}
	return ids, d.nextID
}

// RestoreIDs gives the items of a freshly parsed document the IDs a previous
// instance of it had (ItemIDs of the document the source was saved from):
// ids[i] becomes the ID of the i-th item and next the ID of the next new
// item, so pointers stay valid across a reload and deleted IDs are never
// reused. ids must have one entry per item, each positive, unique and below
// next, and the document must have no journaled edit (the journal names
// items by ID); otherwise RestoreIDs returns an error wrapping ErrIDs and
// changes nothing. Labels do not depend on IDs and stay as they are. The
// version does not change either, so call RestoreIDs before anything keyed
// by it caches IDs (a search index, cursors, target sets).
//
// Container IDs are not restored: they never leave the document (no
// pointer, journal entry or result carries one; outside callers only see
// container kinds through Item.ContainerPath). They only group items that
// share a list, list item or quote, and a parse assigns them consistently,
// so the parse's own container IDs (and nextCont) are as good as any.
func (d *Document) RestoreIDs(ids []int, next int) error {
	d.force()
	if err := d.checkIDs(ids, next); err != nil {
		return err
	}
	byID := make(map[int]*Item, len(ids))
	for i, it := range d.All(0, d.items.n) {
		it.ID = ids[i]
		byID[it.ID] = it
	}
	d.byID, d.nextID = byID, next
	d.changes = nil // they name the IDs before (the label index holds items, not IDs: it stays)
	return nil
}

// MaxNextID is the largest next ID (see CheckNextID) a document of n
// items may be given: 16 IDs per item plus 2^20, and never 2^31 or more.
//
// What bounds it is memory, not the IDs' 32 bits: the encoding's table from
// ID to item (4 bytes per ID) and the search index's entries (one per ID)
// are indexed by ID, so they cost up to the largest ID whatever the number
// of items. Under this bound they stay proportional to the book (a
// million IDs is 4 MB of table) while a book keeps its IDs through edits
// that create sixteen times its items, or through the deletion of all but
// a few of a million. IDs only come from outside (a state file, a journal,
// a store) beyond it when that record is damaged or was edited by hand;
// the readers of the state beside a book file refuse such a record
// (CheckNextID) and renumber the items, as they do when it is missing.
// RestoreIDs does not check it: a document in memory may hold any IDs
// (a server's store numbers a document anew above its recorded next ID).
// The 2^31 keeps every ID an int32, as the encodings read them.
func MaxNextID(n int) int { return min(math.MaxInt32, 16*max(n, 0)+1<<20) }

// CheckNextID returns an error wrapping ErrIDs when next is beyond
// MaxNextID(n) for a document of n items: the one rule for every reader of
// a record of IDs kept beside a book file.
func CheckNextID(next, n int) error {
	if next > MaxNextID(n) {
		return fmt.Errorf("%w: the next ID %d is beyond %d, the bound for %d items (a damaged or hand-edited record)",
			ErrIDs, next, MaxNextID(n), n)
	}
	return nil
}

// checkIDs validates the arguments of RestoreIDs.
func (d *Document) checkIDs(ids []int, next int) error {
	switch {
	case len(d.journal) > 0:
		return fmt.Errorf("%w: the document has %d journaled edits; IDs can only be restored right after loading",
			ErrIDs, len(d.journal))
	case len(ids) != d.Len():
		return fmt.Errorf("%w: %d IDs for %d items", ErrIDs, len(ids), d.Len())
	case next < 1:
		return fmt.Errorf("%w: the next ID must be at least 1 (got %d)", ErrIDs, next)
	}
	seen := make(map[int]int, len(ids))
	for i, id := range ids {
		if id < 1 || id >= next {
			return fmt.Errorf("%w: item %d has ID %d, outside 1..%d (the next ID is %d)", ErrIDs, i, id, next-1, next)
		}
		if j, dup := seen[id]; dup {
			return fmt.Errorf("%w: items %d and %d both have ID %d", ErrIDs, j, i, id)
		}
		seen[id] = i
	}
	return nil
}
