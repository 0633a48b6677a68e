package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/pointer"
)

// Stale checks a pointer whose ID and label disagree. The document trusts
// the ID, which is right within one session; but aite numbers IDs afresh
// each time it reads the book, so for the command line a disagreement means
// the book changed since the pointer was listed, and the ID may now name a
// different item. Stale returns a *document.PointerError naming what the ID
// and the label name now, or nil when the pointer is consistent (or not an
// `id:label` pointer, or does not resolve: the command reports that).
func (b *Book) Stale(ptr string) error {
	p, err := pointer.Parse(ptr)
	if err != nil || p.ID == 0 || p.Label == "" {
		return nil
	}
	it, ok := b.byID(p.ID)
	if !ok || it.Label == p.Label {
		return nil
	}
	reason := fmt.Sprintf("the ID %d now names %s", p.ID, it.Pointer)
	nearest := []pointer.Pointer{it.Pointer}
	if other, ok := b.byLabel(p.Label); ok {
		reason += fmt.Sprintf(" and the label %s names %s", p.Label, other.Pointer)
		nearest = append(nearest, other.Pointer)
	}
	reason += "; the book has changed since this pointer was listed (aite numbers IDs afresh on every run): list the items again and use a current pointer"
	return &document.PointerError{Input: ptr, Reason: reason, Nearest: nearest, Err: document.ErrNotFound}
}

// Fresh is the pointer an item will have when the book is next read: IDs
// are numbered 1..N in document order on every read.
func Fresh(it editor.ItemView) pointer.Pointer {
	return pointer.Pointer{ID: it.Index + 1, Label: it.Label}
}

// WarnStale writes a warning to w when ptr is stale (see Stale); reading
// commands go on with the item the ID names.
func (b *Book) WarnStale(w io.Writer, ptr string) {
	var pe *document.PointerError
	if errors.As(b.Stale(ptr), &pe) {
		fmt.Fprintf(w, "aite: warning: %s; showing the item with the ID\n", pointerMessage(pe))
	}
}
