package document

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/pointer"
)

// JournalEntry records one applied operation: enough to show history and
// to undo it exactly.
type JournalEntry struct {
	Seq            int             `json:"seq"`
	Op             Op              `json:"op"`
	Target         pointer.Pointer `json:"target"`
	Pointer        pointer.Pointer `json:"pointer"`
	MarkdownBefore string          `json:"markdownBefore"`
	MarkdownAfter  string          `json:"markdownAfter"`
	Splice         Splice          `json:"splice"`
	Time           time.Time       `json:"time"`
	// ItemID is the ID of the affected item (the new one for inserts).
	ItemID int `json:"itemId"`
	// Kind is the affected item's kind before the edit (after, for inserts).
	Kind Kind `json:"kind"`
}

// Journal returns the applied operations, oldest first.
func (d *Document) Journal() []JournalEntry { return d.journal }

func (d *Document) record(p plan, r EditResult) {
	e := JournalEntry{Seq: len(d.journal) + 1, Op: p.op, Target: r.Target, Pointer: r.Pointer,
		MarkdownBefore: r.MarkdownBefore, MarkdownAfter: r.MarkdownAfter, Splice: r.Splice,
		Time: d.now(), ItemID: r.Pointer.ID, Kind: p.target.Kind}
	if n := d.byID[r.Pointer.ID]; n != nil && p.op != OpReplace {
		e.Kind = n.Kind
	}
	d.journal = append(d.journal, e)
}

// Undo reverts the most recent journaled operation by the reverse splice,
// validated like any edit; a deleted item comes back with its old ID. The
// entry leaves the journal. It returns the entry undone.
func (d *Document) Undo() (JournalEntry, error) {
	if len(d.journal) == 0 {
		return JournalEntry{}, ErrNothingToUndo
	}
	if err := d.editable(); err != nil {
		return JournalEntry{}, err
	}
	e := d.journal[len(d.journal)-1]
	p, err := d.undoPlan(e)
	if err != nil {
		return JournalEntry{}, err
	}
	if _, err := d.apply(p); err != nil {
		return JournalEntry{}, fmt.Errorf("undo of %s %s: %w", opName(e.Op), e.Pointer, err)
	}
	d.journal = d.journal[:len(d.journal)-1]
	return e, nil
}

func (d *Document) undoPlan(e JournalEntry) (plan, error) {
	sp := Splice{Start: e.Splice.Start, Old: e.Splice.New, New: e.Splice.Old}
	if sp.Start+len(sp.Old) > d.text.Len() || string(d.text.Slice(sp.Start, sp.Start+len(sp.Old))) != sp.Old {
		return plan{}, fmt.Errorf("%w: the source no longer matches the journal", ErrStructure)
	}
	p := plan{op: undoOp(e.Op), sp: sp, remove: -1, insert: -1, noJournal: true}
	switch e.Op {
	case OpReplace, OpInsertBefore, OpInsertAfter, OpAppend:
		it := d.byID[e.ItemID]
		if it == nil {
			return plan{}, fmt.Errorf("%w: item %d of the journal is gone", ErrStructure, e.ItemID)
		}
		p.target, p.top, p.remove = it, it.Top(), it.Index()
		if e.Op == OpReplace {
			p.insert, p.reuseID = it.Index(), it.ID
			p.newStart, p.newEnd = sp.Start, sp.Start+len(e.MarkdownBefore)
			kind := e.Kind
			p.kind = func(n *Item) error { return sameKind(kind, n) }
		}
	case OpDelete:
		idx, top := d.insertionPoint(sp.Start)
		p.target = &Item{ID: e.ItemID, Label: e.Target.Label, Kind: e.Kind}
		p.insert, p.top, p.reuseID = idx, top, e.ItemID
		p.newStart = sp.Start + max(0, strings.Index(sp.New, e.MarkdownBefore))
		p.newEnd = p.newStart + len(e.MarkdownBefore)
		kind := e.Kind
		p.kind = func(n *Item) error { return sameKind(kind, n) }
	}
	return p, nil
}

func undoOp(op Op) Op {
	switch op {
	case OpInsertBefore, OpInsertAfter, OpAppend:
		return OpDelete
	case OpDelete:
		return OpInsertAfter
	}
	return op
}

func sameKind(k Kind, n *Item) error {
	if n.Kind != k {
		return fmt.Errorf("%w: the restored item would read as %s instead of %s", ErrStructure, n.Kind, k)
	}
	return nil
}

// insertionPoint returns the index an item starting at offset would take
// and the top-level block next to it.
func (d *Document) insertionPoint(off int) (int, int) {
	i := sort.Search(d.items.n, func(i int) bool { return d.at(i).Start() >= off }) // items are in source order
	top := 0
	switch {
	case i < d.items.n:
		top = d.at(i).Top()
	case i > 0:
		top = d.at(i - 1).Top()
	}
	return i, top
}
