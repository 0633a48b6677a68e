package document

import "fmt"

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
	d.changes = nil // they name the IDs before
	d.labels = nil  // the label index holds items, not IDs; rebuilt on use anyway
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
