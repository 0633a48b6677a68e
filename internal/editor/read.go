package editor

import (
	"fmt"
	"sort"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// ItemView is an item as callers see it; the JSON field names are stable.
type ItemView struct {
	Pointer    pointer.Pointer `json:"pointer"`
	ID         int             `json:"id"`
	Label      string          `json:"label"`
	Kind       document.Kind   `json:"kind"`
	Level      int             `json:"level,omitempty"`
	Index      int             `json:"index"`
	Markdown   string          `json:"markdown"`
	Text       string          `json:"text"`
	Containers string          `json:"containers,omitempty"`
}

func view(d *document.Document, it *document.Item) ItemView {
	return ItemView{Pointer: it.Pointer(), ID: it.ID, Label: it.Label, Kind: it.Kind, Level: it.Level,
		Index: it.Index, Markdown: d.Markdown(it), Text: it.Text, Containers: it.ContainerPath()}
}

func views(d *document.Document, items []*document.Item) []ItemView {
	out := make([]ItemView, len(items))
	for i, it := range items {
		out[i] = view(d, it)
	}
	return out
}

// ReadView is an item with its neighbours.
type ReadView struct {
	Target pointer.Pointer `json:"target"`
	Items  []ItemView      `json:"items"`
}

// Read returns the item a pointer names with up to before/after neighbours.
func (s *Session) Read(id, ptr string, before, after int) (ReadView, error) {
	var out ReadView
	err := s.with(id, func(b *book) error {
		items, at, err := b.doc.Read(ptr, before, after)
		if err != nil {
			return err
		}
		out = ReadView{Target: items[at].Pointer(), Items: views(b.doc, items)}
		return nil
	})
	return out, err
}

// ItemsView is a run of items and where the next run starts.
type ItemsView struct {
	Items []ItemView `json:"items"`
	// Next is the pointer to continue from ("" at the end).
	Next string `json:"next,omitempty"`
}

// Items lists up to limit items from a pointer ("" for the start), keeping
// only the given kinds (all when none).
func (s *Session) Items(id, from string, limit int, kinds []document.Kind) (ItemsView, error) {
	var out ItemsView
	err := s.with(id, func(b *book) error {
		var keep func(*document.Item) bool
		if len(kinds) > 0 {
			set := map[document.Kind]bool{}
			for _, k := range kinds {
				set[k] = true
			}
			keep = func(it *document.Item) bool { return set[it.Kind] }
		}
		items, err := b.doc.Range(from, limit+1, keep)
		if err != nil {
			return err
		}
		if len(items) > limit {
			out.Next = items[limit].Pointer().String()
			items = items[:limit]
		}
		out.Items = views(b.doc, items)
		return nil
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
		end := min(total, from+limit)
		all := b.doc.Items()
		if from < end {
			items = views(b.doc, all[from:end])
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
		items := b.doc.Items()
		i := sort.Search(len(items), func(i int) bool { return items[i].End > off })
		if i == len(items) {
			return fmt.Errorf("%w: no item ends after byte %d", document.ErrRange, off)
		}
		out = view(b.doc, items[i])
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
			out = view(b.doc, it)
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
			out, found = view(b.doc, it), true
		}
		return nil
	})
	return out, found
}

// SectionView is one heading of the outline.
type SectionView struct {
	Pointer  pointer.Pointer `json:"pointer"`
	Level    int             `json:"level"`
	Title    string          `json:"title"`
	Items    int             `json:"items"`
	Total    int             `json:"total"`
	Children []SectionView   `json:"children,omitempty"`
}

// OutlineView is the heading tree.
type OutlineView struct {
	// Preamble counts the items before the first heading.
	Preamble int           `json:"preamble"`
	Sections []SectionView `json:"sections"`
}

// Outline returns the heading tree with item counts.
func (s *Session) Outline(id string) (OutlineView, error) {
	var out OutlineView
	err := s.with(id, func(b *book) error {
		secs, pre := b.doc.Outline()
		out = OutlineView{Preamble: pre, Sections: sectionViews(secs)}
		return nil
	})
	return out, err
}

func sectionViews(secs []*document.Section) []SectionView {
	out := make([]SectionView, len(secs))
	for i, s := range secs {
		out[i] = SectionView{Pointer: s.Heading.Pointer(), Level: s.Heading.Level, Title: s.Heading.Text,
			Items: s.Items, Total: s.Total, Children: sectionViews(s.Children)}
	}
	return out
}
