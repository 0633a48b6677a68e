// Package bookview is the reading side of one open book: the views of its
// items (the shapes every caller gets, with stable JSON names), reading by
// pointer, listing, the outline, search and cursors over a document and its
// index. The editor session runs these under its lock for every book it
// holds; a process that only reads a book from its cache (bookcache.Open)
// uses a Book directly. Nothing here parses Markdown or touches files.
package bookview

import (
	"fmt"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
	"github.com/aitexteditor/aite/internal/search"
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

// View returns the view of an item of d.
func View(d *document.Document, it *document.Item) ItemView {
	v := Brief(it)
	v.Markdown = d.Markdown(it)
	return v
}

// Brief is View without the Markdown: what a listing of items shows.
func Brief(it *document.Item) ItemView {
	return ItemView{Pointer: it.Pointer(), ID: it.ID, Label: it.Label, Kind: it.Kind, Level: it.Level,
		Index: it.Index(), Text: it.Text, Containers: it.ContainerPath()}
}

// Views returns the views of items of d.
func Views(d *document.Document, items []*document.Item) []ItemView {
	out := make([]ItemView, len(items))
	for i, it := range items {
		out[i] = View(d, it)
	}
	return out
}

// ReadView is an item with its neighbours.
type ReadView struct {
	Target pointer.Pointer `json:"target"`
	Items  []ItemView      `json:"items"`
}

// Read returns the item a pointer names with up to before/after neighbours.
func Read(d *document.Document, ptr string, before, after int) (ReadView, error) {
	items, at, err := d.Read(ptr, before, after)
	if err != nil {
		return ReadView{}, err
	}
	return ReadView{Target: items[at].Pointer(), Items: Views(d, items)}, nil
}

// ItemsView is a run of items and where the next run starts.
type ItemsView struct {
	Items []ItemView `json:"items"`
	// Next is the pointer to continue from ("" at the end).
	Next string `json:"next,omitempty"`
}

// Items lists up to limit items from a pointer ("" for the start), keeping
// only the given kinds (all when none).
func Items(d *document.Document, from string, limit int, kinds []document.Kind) (ItemsView, error) {
	var keep func(*document.Item) bool
	if len(kinds) > 0 {
		set := map[document.Kind]bool{}
		for _, k := range kinds {
			set[k] = true
		}
		keep = func(it *document.Item) bool { return set[it.Kind] }
	}
	items, err := d.Range(from, limit+1, keep)
	if err != nil {
		return ItemsView{}, err
	}
	var out ItemsView
	if len(items) > limit {
		out.Next = items[limit].Pointer().String()
		items = items[:limit]
	}
	out.Items = Views(d, items)
	return out, nil
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
func Outline(d *document.Document) OutlineView {
	secs, pre := d.Outline()
	return OutlineView{Preamble: pre, Sections: sectionViews(secs)}
}

func sectionViews(secs []*document.Section) []SectionView {
	out := make([]SectionView, len(secs))
	for i, s := range secs {
		out[i] = SectionView{Pointer: s.Heading.Pointer(), Level: s.Heading.Level, Title: s.Heading.Text,
			Items: s.Items, Total: s.Total, Children: sectionViews(s.Children)}
	}
	return out
}

// SearchMode selects exact phrase or ranked search.
type SearchMode string

// Search modes.
const (
	Exact  SearchMode = "exact"
	Ranked SearchMode = "ranked"
	// All finds the items holding every word, in any form (search.Index.All).
	All SearchMode = "all"
)

// Search finds items: exact normalised phrase (document order), every word
// in any form (document order) or BM25 ranking (best first). Results are
// pointers with scores and snippets.
func Search(x *search.Index, d *document.Document, query string, mode SearchMode, opt search.Options) ([]search.Result, error) {
	switch mode {
	case Exact, "":
		return x.Exact(d, query, opt)
	case Ranked:
		return x.Ranked(d, query, opt)
	case All:
		return x.All(d, query, opt)
	}
	return nil, fmt.Errorf("%w: unknown search mode %q (exact, ranked, all)", cursor.ErrSpec, mode)
}
