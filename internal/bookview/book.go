package bookview

import (
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
)

// Book is one book open for reading: its document, search index and
// cursors. It is not safe for concurrent use.
type Book struct {
	doc   *document.Document
	index *search.Index
	reg   *cursor.Registry
}

// New opens a document for reading; x is its index (built on first use
// when nil).
func New(d *document.Document, x *search.Index) *Book {
	return &Book{doc: d, index: x, reg: cursor.NewRegistry(d)}
}

// Index returns the book's search index, nil while it has none.
func (b *Book) Index() *search.Index { return b.index }

// Resolve returns the item a pointer names.
func (b *Book) Resolve(ptr string) (ItemView, error) {
	it, err := b.doc.Resolve(ptr)
	if err != nil {
		return ItemView{}, err
	}
	return View(b.doc, it), nil
}

// ItemText returns the item with an ID without its Markdown (false when
// no item has it).
func (b *Book) ItemText(id int) (ItemView, bool) {
	if it := b.doc.ByID(id); it != nil {
		return Brief(it), true
	}
	return ItemView{}, false
}

// Read returns the item a pointer names with up to before/after neighbours.
func (b *Book) Read(ptr string, before, after int) (ReadView, error) {
	return Read(b.doc, ptr, before, after)
}

// Items lists up to limit items from a pointer ("" for the start) of the
// given kinds (all when none).
func (b *Book) Items(from string, limit int, kinds []document.Kind) (ItemsView, error) {
	return Items(b.doc, from, limit, kinds)
}

// Outline returns the heading tree with item counts.
func (b *Book) Outline() (OutlineView, error) { return Outline(b.doc), nil }

// CreateCursor makes (or re-creates) a named cursor.
func (b *Book) CreateCursor(spec cursor.Spec) (cursor.Info, error) { return b.reg.Create(b.doc, spec) }

// Next returns a cursor's next portion.
func (b *Book) Next(name string) (cursor.Portion, error) {
	var x cursor.KeywordIndex
	if b.reg.NeedsIndex(b.doc, name) {
		b.index = IndexFor(b.index, b.doc)
		x = b.index
	}
	return b.reg.Next(b.doc, x, name)
}

// Search runs an exact or ranked search.
func (b *Book) Search(query string, mode SearchMode, opt search.Options) ([]search.Result, error) {
	b.index = IndexFor(b.index, b.doc)
	return Search(b.index, b.doc, query, mode, opt)
}
