package document

import "slices"

// Change is what edits did to a document, in the terms a store of its
// revisions needs: Text, the bytes Old at byte offset Start of the source
// before became New; the Old items from index At on were replaced by items
// with the IDs IDs; and Next is the ID the next new item gets. Applying
// both splices to the source and the item IDs before gives the source and
// the item IDs after, at a cost in proportion to the change.
type Change struct {
	Text Splice
	At   int
	Old  int
	IDs  []int
	Next int
}

// change is one recorded commit: the Change it made and the version it
// produced.
type change struct {
	Change
	version int
}

// keptChanges is how many commits ChangeSince can look back over.
const keptChanges = 64

// noteChange records the change of the commit that produced the current
// version.
func (d *Document) noteChange(c Change) {
	if len(d.changes) == keptChanges {
		d.changes = slices.Delete(d.changes, 0, 1)
	}
	d.changes = append(d.changes, change{Change: c, version: d.version})
}

// ChangeSince returns what the edits since version since did to the
// document, as one Change (the Old bytes are those the edits replaced,
// the IDs those of the items that replaced the Old ones, in document
// order), at a cost in proportion to the change, not to the document.
// False when it is not known: since is not an earlier version of this
// document, too many edits were made since, or the IDs were restored
// meanwhile.
func (d *Document) ChangeSince(since int) (Change, bool) {
	n := d.version - since
	switch {
	case n < 0 || n > len(d.changes):
		return Change{}, false
	case n == 0:
		return Change{Text: Splice{Start: 0}, Next: d.nextID}, true
	}
	cs := d.changes[len(d.changes)-n:]
	if cs[0].version != since+1 {
		return Change{}, false
	}
	if n == 1 {
		c := cs[0].Change
		c.IDs = slices.Clone(c.IDs)
		return c, true
	}
	// The bytes before the first byte any edit touched, and the bytes
	// after the last, are the same before and after all of them: what lies
	// between, in the source now, with the edits undone newest first, is
	// the source before.
	lo, tail := d.text.Len(), d.text.Len()
	ilo, itail := d.Len(), d.Len()
	size, count := d.text.Len(), d.Len()
	for k := len(cs) - 1; k >= 0; k-- {
		c := cs[k].Change
		lo = min(lo, c.Text.Start)
		tail = min(tail, size-c.Text.Start-len(c.Text.New))
		size += len(c.Text.Old) - len(c.Text.New)
		ilo = min(ilo, c.At)
		itail = min(itail, count-c.At-len(c.IDs))
		count += c.Old - len(c.IDs)
	}
	now := d.text.Slice(lo, d.text.Len()-tail)
	old := string(now)
	for k := len(cs) - 1; k >= 0; k-- {
		t := cs[k].Text
		at := t.Start - lo
		old = old[:at] + t.Old + old[at+len(t.New):]
	}
	ids := make([]int, 0, d.Len()-itail-ilo)
	for i := ilo; i < d.Len()-itail; i++ {
		ids = append(ids, d.idAt(i))
	}
	return Change{Text: Splice{Start: lo, Old: old, New: string(now)}, At: ilo, Old: count - ilo - itail, IDs: ids,
		Next: d.nextID}, true
}

// idAt returns the ID of the item at index i without building it.
func (d *Document) idAt(i int) int {
	if d.lazy != nil {
		id, _, _, _, _ := d.lazy.rec(i)
		return id
	}
	return d.at(i).ID
}
