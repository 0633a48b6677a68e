package reading

import (
	"errors"
	"fmt"
	"io"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// Stale checks a pointer whose ID and label disagree. Item IDs are
// recorded beside the book (bookcache.StateDir), so when the record was
// trusted an ID names the item it always named and a label that no longer
// agrees only means the book changed around the item: Stale returns nil
// (see LabelNote). When the items were numbered afresh (no usable record:
// a first run, or the record was deleted), a disagreement means the pointer
// was listed under another numbering and the ID may name a different item:
// Stale returns a *document.PointerError naming what the ID and the label
// name now. Pointers that are not `id:label`, or do not resolve, are left
// to the command.
func (b *Book) Stale(ptr string) error {
	if !b.renumbered {
		return nil
	}
	p, it, ok := b.disagreeing(ptr)
	if !ok {
		return nil
	}
	reason := fmt.Sprintf("the ID %d now names %s", p.ID, it.Pointer)
	nearest := []pointer.Pointer{it.Pointer}
	if other, ok := b.byLabel(p.Label); ok {
		reason += fmt.Sprintf(" and the label %s names %s", p.Label, other.Pointer)
		nearest = append(nearest, other.Pointer)
	}
	reason += "; aite has no record of the IDs this pointer was listed with (the book's state was missing or deleted, so its items were numbered afresh): list the items again and use a current pointer"
	return &document.PointerError{Input: ptr, Reason: reason, Nearest: nearest, Err: document.ErrNotFound}
}

// disagreeing returns the parsed pointer and the item its ID names when ptr
// is an `id:label` pointer whose label is not that item's.
func (b *Book) disagreeing(ptr string) (pointer.Pointer, bookview.ItemView, bool) {
	p, err := pointer.Parse(ptr)
	if err != nil || p.ID == 0 || p.Label == "" {
		return p, bookview.ItemView{}, false
	}
	it, ok := b.ByID(p.ID)
	return p, it, ok && it.Label != p.Label
}

// LabelNote returns a note when ptr's label is out of date while its ID is
// trusted (the item moved within the book), or "".
func (b *Book) LabelNote(ptr string) string {
	if b.renumbered {
		return ""
	}
	if _, it, ok := b.disagreeing(ptr); ok {
		return fmt.Sprintf("aite: note: %s is now %s (the book changed around it; the ID still names the same item)", ptr, it.Pointer)
	}
	return ""
}

// WarnStale writes to w a warning when ptr is stale (see Stale) — reading
// commands go on with the item the ID names — or the note of LabelNote.
func (b *Book) WarnStale(w io.Writer, ptr string) {
	var pe *document.PointerError
	if errors.As(b.Stale(ptr), &pe) {
		fmt.Fprintf(w, "aite: warning: %s; showing the item with the ID\n", PointerMessage(pe))
		return
	}
	if n := b.LabelNote(ptr); n != "" {
		fmt.Fprintln(w, n)
	}
}
