// Package document is aite's model of a book: an ordered list of
// addressable items (one per Markdown block), their semantic pointers, the
// reading operations (Resolve, Read, Outline, Range) and the domain edit
// operations (ReplaceText, InsertBefore, InsertAfter, Delete) with their
// validation and edit journal. It does no I/O: the markdown package parses
// bytes into a Document and provides the Parser that edits use to re-parse
// the neighbourhood of a change.
//
// Edits splice bytes: only the edited item's bytes (and the separator that
// belongs to it) change; every other byte of the source stays identical. An
// edit is accepted only if the spliced source re-parses to exactly the
// expected items, so no edit can silently merge blocks, create a heading or
// move an item into another container.
//
// The items are held in chunks (chunk.go) with their positions relative to
// the chunk, so that an edit costs the same however long the book is:
// positions are read through Item.Index, Start, End and Top, and Items
// builds a flat slice only when a caller asks for all of them.
//
// A Document is not safe for concurrent use; callers serialise access.
package document

import (
	"iter"
	"slices"
	"time"

	"github.com/aitexteditor/aite/internal/pointer"
)

// Region is what a Parser returns for a part of a source: its items (in
// order, with Kind, Level, Start, End, Text, Containers, QuoteDepth, Shape and
// a region-local Top index) and the spans of its top-level blocks. Container
// IDs are unique within the region and greater than zero.
type Region struct {
	Items []*Item
	Tops  []Span
	// Src is the source the region was parsed from, from offset Base on.
	Src  []byte
	Base int
}

// Parser parses a region of a source. The region [start, end) always starts
// at the beginning of a top-level block (or of the source) and ends at the
// end of one; offsets in the result are absolute. win holds the source
// from offset base on (base <= start), at least through end and the line
// ending after it, or to the end of the source; base is 0 whenever start
// is at the start of the source (or just after a byte order mark).
type Parser interface {
	ParseWindow(win []byte, base, start, end int) Region
}

// Document is a parsed book.
type Document struct {
	text Text // the source
	// items and tops hold the items and the top-level spans in chunks
	// (chunk.go); flat and flatTops are the views Items and Tops return,
	// built on demand and dropped by an edit.
	items    chunked[*Item, itemHolder]
	tops     chunked[Span, spanHolder]
	flat     []*Item
	flatTops []Span
	byID     map[int]*Item
	nextID   int
	nextCont int
	parser   Parser
	journal  []JournalEntry
	labels   map[string]*Item
	version  int
	changes  []change // the last commits' changes (change.go)
	clock    func() time.Time
	preview  bool // apply validates only (Preview)
	// lazy, when set, is the encoding a decoded document builds its items
	// from on demand (frozen.go): built holds the items built so far by
	// index; items, byID and tops are unset. force builds everything and
	// clears it.
	lazy  *frozen
	built map[int]*Item
}

// New builds a document from a source and its full-source region. IDs are
// assigned 1..N in document order (RestoreIDs can replace them with those
// of an earlier instance) and labels computed.
func New(src []byte, r Region, p Parser) *Document {
	d := &Document{text: TextOf(src), parser: p, nextID: 1, nextCont: 1}
	d.byID = make(map[int]*Item, len(r.Items))
	for i, it := range r.Items {
		it.index = i
		it.ID = d.nextID
		d.nextID++
		d.byID[it.ID] = it
		for _, c := range it.Containers {
			d.nextCont = max(d.nextCont, c.ID+1)
		}
	}
	d.setItems(r.Items)
	d.setTops(r.Tops)
	d.relabel(0, d.items.n)
	return d
}

// Parser returns the parser the document re-parses edited regions with
// (nil for a document decoded for reading only).
func (d *Document) Parser() Parser { return d.parser }

// Source returns the current source bytes. The slice must not be modified.
// After edits the source is held in pieces (Text); the first call joins
// them (one copy of the book), so a caller that can take the pieces
// (SourceText) should.
func (d *Document) Source() []byte {
	if len(d.text.parts) > 1 {
		d.text = TextOf(d.text.Bytes())
	}
	return d.text.Bytes()
}

// SourceText returns the current source as it is held, without copying.
func (d *Document) SourceText() Text { return d.text }

// Size returns the length of the source in bytes.
func (d *Document) Size() int { return d.text.Len() }

// Version counts applied edits; it changes whenever the source changes.
func (d *Document) Version() int { return d.version }

// Len returns the number of items.
func (d *Document) Len() int {
	if d.lazy != nil {
		return d.lazy.n
	}
	return d.items.n
}

// Items returns the items in document order. The slice and the items are
// owned by the document and must not be modified. The document holds its
// items in chunks: the slice is built on the first call after an edit
// (O(items)), so a caller that reads a few items uses At or All instead.
func (d *Document) Items() []*Item {
	d.force()
	return d.flatItems()
}

// All yields the items [from, to) in document order with their indexes
// (clamped to the document), building those of a decoded document as it
// goes.
func (d *Document) All(from, to int) iter.Seq2[int, *Item] {
	return func(yield func(int, *Item) bool) {
		from, to := max(from, 0), min(to, d.Len())
		if d.lazy != nil {
			for i := from; i < to; i++ {
				if !yield(i, d.item(i)) {
					return
				}
			}
			return
		}
		i := from
		for it := range d.walk(from, to) {
			if !yield(i, it) {
				return
			}
			i++
		}
	}
}

// At returns the item at an index, or nil.
func (d *Document) At(i int) *Item {
	if i < 0 || i >= d.Len() {
		return nil
	}
	return d.item(i)
}

// item returns the item at a valid index, building it if the document is
// lazy and has not built it yet.
func (d *Document) item(i int) *Item {
	if d.lazy == nil {
		return d.at(i)
	}
	if it := d.built[i]; it != nil {
		return it
	}
	it := d.lazy.item(i, d.text.Bytes())
	d.built[i] = it
	return it
}

// span returns the items [from, to) of a valid range.
func (d *Document) span(from, to int) []*Item {
	if d.lazy == nil {
		return slices.Collect(d.walk(from, to))
	}
	out := make([]*Item, to-from)
	for i := range out {
		out[i] = d.item(from + i)
	}
	return out
}

// KindAt returns the kind of the item at a valid index and TextAt its
// text; a decoded document does not build the item for them.
func (d *Document) KindAt(i int) Kind {
	if d.lazy != nil {
		if it := d.built[i]; it != nil {
			return it.Kind
		}
		return d.lazy.kindOf(i)
	}
	return d.at(i).Kind
}

// TextAt: see KindAt.
func (d *Document) TextAt(i int) string {
	if d.lazy != nil {
		if it := d.built[i]; it != nil {
			return it.Text
		}
		_, text := d.lazy.text(i, d.text.Bytes())
		return text
	}
	return d.at(i).Text
}

// EachText calls f with the ID and the text of every item, in document
// order; a decoded document does not build its items for it.
func (d *Document) EachText(f func(id int, text string)) {
	if d.lazy == nil {
		for it := range d.walk(0, d.items.n) {
			f(it.ID, it.Text)
		}
		return
	}
	for i := range d.lazy.n {
		if it := d.built[i]; it != nil {
			f(it.ID, it.Text)
			continue
		}
		f(d.lazy.text(i, d.text.Bytes()))
	}
}

// ByID returns the item with an ID, or nil.
func (d *Document) ByID(id int) *Item {
	if d.lazy != nil {
		if i := d.lazy.byID(id); i >= 0 {
			return d.item(i)
		}
		return nil
	}
	return d.byID[id]
}

// byLabel returns the item with a label, or nil.
func (d *Document) byLabel(label string) *Item {
	if d.lazy != nil {
		if i := d.lazy.byLabel(label); i >= 0 {
			return d.item(i)
		}
		return nil
	}
	return d.labelIndex()[label]
}

// headingAt reports whether the item at a valid index is a heading, and
// its level, without building it.
func (d *Document) headingAt(i int) (bool, int) {
	if d.lazy != nil {
		return d.lazy.heading(i) // a built item is its record
	}
	it := d.at(i)
	return it.Kind == Heading, it.Level
}

// force builds every item of a lazy document, so that it is an ordinary
// one from then on.
func (d *Document) force() {
	f := d.lazy
	if f == nil {
		return
	}
	items := make([]*Item, f.n)
	d.byID = make(map[int]*Item, f.n)
	slab := make([]Item, f.n) // one allocation, the items side by side
	src := d.text.Bytes()
	for i := range items {
		it := d.built[i]
		if it == nil {
			it = &slab[i]
			f.fill(it, i, src)
		}
		f.unshare(it)
		items[i] = it
		d.byID[it.ID] = it
	}
	tops := make([]Span, len(f.tops)/8)
	for k := range tops {
		tops[k] = Span{Start: f.u32(f.tops, 2*k), End: f.u32(f.tops, 2*k+1)}
		if t := tops[k]; t.Start > t.End || t.End > d.text.Len() {
			panic(corrupt("top-level block %d spans %d..%d", k, t.Start, t.End))
		}
	}
	if len(d.byID) != len(items) {
		panic(corrupt("%d items share %d IDs", len(items), len(d.byID)))
	}
	d.setItems(items)
	d.setTops(tops)
	d.lazy, d.built = nil, nil
}

// Markdown returns the item's exact source bytes as a string.
func (d *Document) Markdown(it *Item) string { return string(d.text.Slice(it.Start(), it.End())) }

// MarkdownBytes returns the item's source bytes, without copying unless
// they lie in several pieces of the source; the slice must not be modified.
func (d *Document) MarkdownBytes(it *Item) []byte { return d.text.Slice(it.Start(), it.End()) }

// Tops returns the spans of the top-level blocks; like Items, the slice
// is built on the first call after an edit.
func (d *Document) Tops() []Span {
	d.force()
	return d.flatTopSpans()
}

// relabel recomputes labels for items[from:to], where from is at a heading
// or the document start and to is at a heading or the end, and keeps the
// label index (if built) in step: an edit relabels its section, not the
// book, and no label outside it changes.
func (d *Document) relabel(from, to int) {
	head, p := "", 0
	if from > 0 {
		head, p = d.sectionBefore(from)
	}
	for it := range d.walk(from, to) {
		d.unlabel(it)
	}
	lab := pointer.NewLabelerAt(head, p)
	for it := range d.walk(from, to) {
		if it.Kind == Heading {
			it.Label = lab.Heading(it.Level)
		} else {
			it.Label = lab.Item()
		}
		if d.labels != nil {
			d.labels[it.Label] = it
		}
	}
}

// unlabel takes an item out of the label index (if built).
func (d *Document) unlabel(it *Item) {
	if d.labels != nil && d.labels[it.Label] == it {
		delete(d.labels, it.Label)
	}
}

// sectionBefore returns the heading label and the p count in effect just
// before index i.
func (d *Document) sectionBefore(i int) (string, int) {
	p := 0
	for j := i - 1; j >= 0; j-- {
		it := d.at(j)
		if it.Kind == Heading {
			return it.Label, p
		}
		p++
	}
	return "", p
}

// sectionBounds returns [from, to): from the heading that starts the section
// of index i (or 0) to the next heading (or the end).
func (d *Document) sectionBounds(i int) (int, int) {
	from := min(i, d.items.n)
	for from > 0 && d.at(from-1).Kind != Heading {
		from--
	}
	if from > 0 {
		from-- // include the heading itself
	}
	to := max(i, from) + 1
	for to < d.items.n && d.at(to).Kind != Heading {
		to++
	}
	return from, min(to, d.items.n)
}

func (d *Document) labelIndex() map[string]*Item {
	if d.labels == nil {
		d.labels = make(map[string]*Item, d.items.n)
		for it := range d.walk(0, d.items.n) {
			d.labels[it.Label] = it
		}
	}
	return d.labels
}

// lineEnding returns the line ending used at offset i ("\r\n" or "\n"),
// looking at the next line break; the document's first line break decides
// when there is none after i.
func (d *Document) lineEnding(i int) string {
	i = min(i, d.text.Len())
	if j := d.text.IndexByte(i, '\n'); j >= 0 {
		if j > i && d.text.At(j-1) == '\r' {
			return "\r\n"
		}
		return "\n"
	}
	if j := d.text.IndexByte(0, '\n'); j > 0 && d.text.At(j-1) == '\r' {
		return "\r\n"
	}
	return "\n"
}
