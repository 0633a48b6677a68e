package editor

import (
	"fmt"
	"sort"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/document"
)

// The views of a book's items: the shapes of internal/bookview, which the
// session runs under its lock.
type (
	// ItemView is an item as callers see it; the JSON field names are stable.
	ItemView = bookview.ItemView
	// ReadView is an item with its neighbours.
	ReadView = bookview.ReadView
	// ItemsView is a run of items and where the next run starts.
	ItemsView = bookview.ItemsView
	// SectionView is one heading of the outline.
	SectionView = bookview.SectionView
	// OutlineView is the heading tree.
	OutlineView = bookview.OutlineView
)

// Read returns the item a pointer names with up to before/after neighbours.
func (s *Session) Read(id, ptr string, before, after int) (ReadView, error) {
	var out ReadView
	err := s.with(id, func(b *book) error {
		var err error
		out, err = bookview.Read(b.doc, ptr, before, after)
		return err
	})
	return out, err
}

// Items lists up to limit items from a pointer ("" for the start), keeping
// only the given kinds (all when none).
func (s *Session) Items(id, from string, limit int, kinds []document.Kind) (ItemsView, error) {
	var out ItemsView
	err := s.with(id, func(b *book) error {
		var err error
		out, err = bookview.Items(b.doc, from, limit, kinds)
		return err
	})
	return out, err
}

// ItemsAt returns up to limit items from index from (0-based; past the end
// gives none) and the number of items of the book. It costs time in
// proportion to limit, wherever from is.
func (s *Session) ItemsAt(id string, from, limit int) (items []ItemView, total int, err error) {
	err = s.with(id, func(b *book) error {
		total = b.doc.Len()
		if from < 0 || limit < 0 {
			return fmt.Errorf("%w: from %d, limit %d", document.ErrRange, from, limit)
		}
		for i := from; i < min(total, from+limit); i++ {
			items = append(items, bookview.View(b.doc, b.doc.At(i)))
		}
		return nil
	})
	return items, total, err
}

// ItemAfter returns the first item that ends after byte offset off of the
// book's source (an error wrapping document.ErrRange when none does).
func (s *Session) ItemAfter(id string, off int) (ItemView, error) {
	var out ItemView
	err := s.with(id, func(b *book) error {
		n := b.doc.Len() // a decoded book builds only the items it looks at
		i := sort.Search(n, func(i int) bool { return b.doc.At(i).End() > off })
		if i == n {
			return fmt.Errorf("%w: no item ends after byte %d", document.ErrRange, off)
		}
		out = bookview.View(b.doc, b.doc.At(i))
		return nil
	})
	return out, err
}

// Resolve returns the item a pointer names.
func (s *Session) Resolve(id, ptr string) (ItemView, error) {
	var out ItemView
	err := s.with(id, func(b *book) error {
		it, err := b.doc.Resolve(ptr)
		if err == nil {
			out = bookview.View(b.doc, it)
		}
		return err
	})
	return out, err
}

// ItemByID returns the item with an ID (false when no item has it).
func (s *Session) ItemByID(id string, itemID int) (ItemView, bool) {
	var out ItemView
	found := false
	_ = s.with(id, func(b *book) error {
		if it := b.doc.ByID(itemID); it != nil {
			out, found = bookview.View(b.doc, it), true
		}
		return nil
	})
	return out, found
}

// ItemText is ItemByID without the Markdown: what a listing of items
// shows.
func (s *Session) ItemText(id string, itemID int) (ItemView, bool) {
	var out ItemView
	found := false
	_ = s.with(id, func(b *book) error {
		if it := b.doc.ByID(itemID); it != nil {
			out, found = bookview.Brief(it), true
		}
		return nil
	})
	return out, found
}

// Outline returns the heading tree with item counts.
func (s *Session) Outline(id string) (OutlineView, error) {
	var out OutlineView
	err := s.with(id, func(b *book) error {
		out = bookview.Outline(b.doc)
		return nil
	})
	return out, err
}
