package document

import (
	"iter"
	"slices"
	"sort"
)

// A document holds its items in chunks of about chunkSize items and its
// top-level spans in chunks of about chunkSize spans. An item keeps its
// Index, Start, End and Top relative to its chunk's bases, a span its Start
// and End relative to its chunk's offset. An edit rebuilds the chunks its
// window touches and moves the bases of the chunks after them: O(chunk +
// chunks), never O(items), however long the book. (A variable for the
// tests.)
var chunkSize = 256

// chunk is a run of consecutive elements of a chunked list: idx is the
// index of its first element, off the offset and top the top-level block
// its elements' numbers count from.
type chunk[E any] struct {
	off, idx, top int
	elems         []E
}

// holder is how the elements of a chunked list hold their numbers.
type holder[E any] interface {
	// base returns the offset and the top-level block a chunk starting
	// with e (free) counts from.
	base(e E) (off, top int)
	// place returns free e, at index i, with its numbers relative to c,
	// which holds it from now on.
	place(c *chunk[E], e E, i int) E
	// free returns e of chunk c with absolute numbers, moved by delta
	// bytes, dn places and dTop top-level blocks, held by no chunk.
	free(c *chunk[E], e E, delta, dn, dTop int) E
}

// chunked is a list of n elements held in chunks.
type chunked[E any, H holder[E]] struct {
	chunks []*chunk[E]
	n      int
}

// runs splits n elements into runs of chunkSize (the last one longer, up to
// twice that, so that no run is short unless n is).
func runs(n int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for from := 0; from < n; {
			to := from + chunkSize
			if n-to < chunkSize {
				to = n
			}
			if !yield(from, to) {
				return
			}
			from = to
		}
	}
}

// set makes free elems, which it keeps, the list.
func (l *chunked[E, H]) set(elems []E) {
	l.chunks, l.n = newChunks[E, H](elems, 0), len(elems)
}

// newChunks puts free elems, the first at index idx, into chunks; it keeps
// elems.
func newChunks[E any, H holder[E]](elems []E, idx int) []*chunk[E] {
	var h H
	var out []*chunk[E]
	for from, to := range runs(len(elems)) {
		off, top := h.base(elems[from])
		c := &chunk[E]{off: off, idx: idx + from, top: top, elems: elems[from:to:to]}
		for i, e := range c.elems {
			c.elems[i] = h.place(c, e, c.idx+i)
		}
		out = append(out, c)
	}
	return out
}

// locate returns the position in l.chunks of the one holding element i
// (0 <= i < l.n).
func (l *chunked[E, H]) locate(i int) int {
	return sort.Search(len(l.chunks), func(k int) bool { return l.chunks[k].idx > i }) - 1
}

// at returns element i (0 <= i < l.n) and its chunk.
func (l *chunked[E, H]) at(i int) (*chunk[E], E) {
	c := l.chunks[l.locate(i)]
	return c, c.elems[i-c.idx]
}

// each yields the elements [from, to) in order, each with its chunk.
func (l *chunked[E, H]) each(from, to int) iter.Seq2[*chunk[E], E] {
	return func(yield func(*chunk[E], E) bool) {
		if from >= to {
			return
		}
		for k := l.locate(from); k < len(l.chunks) && l.chunks[k].idx < to; k++ {
			c := l.chunks[k]
			for _, e := range c.elems[max(0, from-c.idx):min(len(c.elems), to-c.idx)] {
				if !yield(c, e) {
					return
				}
			}
		}
	}
}

// replace replaces the elements [i0, i1) by repl, free and with their
// final numbers, and moves the elements after them by delta bytes, dTop
// top-level blocks and the change in count. Only the chunks holding i0..i1
// (the one i0 falls in when the range is empty, and a short one's
// neighbour) are rebuilt, in new chunks, so an element the edit removed
// keeps the numbers it had; the chunks after them only move their bases.
func (l *chunked[E, H]) replace(i0, i1 int, repl []E, delta, dTop int) {
	var h H
	dn := len(repl) - (i1 - i0)
	if len(l.chunks) == 0 {
		l.set(repl)
		return
	}
	a := l.locate(min(i0, l.n-1))
	b := a
	if i1 > i0 {
		b = l.locate(i1 - 1)
	}
	ca, cb := l.chunks[a], l.chunks[b]
	elems := make([]E, 0, i0-ca.idx+len(repl)+len(cb.elems)+chunkSize)
	for _, e := range ca.elems[:i0-ca.idx] {
		elems = append(elems, h.free(ca, e, 0, 0, 0)) // they stay where they are
	}
	elems = append(elems, repl...)
	for _, e := range cb.elems[i1-cb.idx:] {
		elems = append(elems, h.free(cb, e, delta, dn, dTop))
	}
	for len(elems) < chunkSize/2 && b+1 < len(l.chunks) {
		b++
		c := l.chunks[b]
		for _, e := range c.elems {
			elems = append(elems, h.free(c, e, delta, dn, dTop))
		}
	}
	for _, c := range l.chunks[b+1:] {
		c.off += delta
		c.idx += dn
		c.top += dTop
	}
	l.chunks = slices.Replace(l.chunks, a, b+1, newChunks[E, H](elems, ca.idx)...)
	l.n += dn
}

// itemHolder: an item holds its numbers itself, relative to the chunk it
// points at (absolute when it points at none).
type itemHolder struct{}

func (itemHolder) base(it *Item) (int, int) { return it.Start(), it.Top() }

func (itemHolder) place(c *chunk[*Item], it *Item, i int) *Item {
	it.index, it.start, it.end, it.top = i-c.idx, it.start-c.off, it.end-c.off, it.top-c.top
	it.c = c
	return it
}

func (itemHolder) free(_ *chunk[*Item], it *Item, delta, dn, dTop int) *Item {
	it.index, it.start, it.end, it.top = it.Index()+dn, it.Start()+delta, it.End()+delta, it.Top()+dTop
	it.c = nil
	return it
}

// spanHolder: a chunk holds its spans relative to its offset.
type spanHolder struct{}

func (spanHolder) base(t Span) (int, int) { return t.Start, 0 }

func (spanHolder) place(c *chunk[Span], t Span, _ int) Span {
	return Span{Start: t.Start - c.off, End: t.End - c.off}
}

func (spanHolder) free(c *chunk[Span], t Span, delta, _, _ int) Span {
	return Span{Start: c.off + t.Start + delta, End: c.off + t.End + delta}
}

// setItems puts items, whose numbers are absolute, into fresh chunks; it
// keeps the slice.
func (d *Document) setItems(items []*Item) {
	d.items.set(items)
	d.flat = nil
}

// setTops puts absolute spans into fresh chunks; it keeps the slice.
func (d *Document) setTops(tops []Span) {
	d.tops.set(tops)
	d.flatTops = nil
}

// at returns item i of a document that is not lazy (0 <= i < d.Len()).
func (d *Document) at(i int) *Item {
	_, it := d.items.at(i)
	return it
}

// walk yields the items [from, to) of a document that is not lazy, in
// order.
func (d *Document) walk(from, to int) iter.Seq[*Item] {
	return func(yield func(*Item) bool) {
		for _, it := range d.items.each(from, to) {
			if !yield(it) {
				return
			}
		}
	}
}

// top returns top-level span k (0 <= k < d.tops.n) of a document that is
// not lazy.
func (d *Document) top(k int) Span {
	c, t := d.tops.at(k)
	return Span{Start: c.off + t.Start, End: c.off + t.End}
}

// flatItems returns every item of a document that is not lazy in one
// slice, built on the first call after an edit.
func (d *Document) flatItems() []*Item {
	if d.flat == nil {
		d.flat = make([]*Item, 0, d.items.n)
		for _, c := range d.items.chunks {
			d.flat = append(d.flat, c.elems...)
		}
	}
	return d.flat
}

// flatTopSpans is flatItems for the top-level spans.
func (d *Document) flatTopSpans() []Span {
	if d.flatTops == nil {
		d.flatTops = make([]Span, 0, d.tops.n)
		for c, t := range d.tops.each(0, d.tops.n) {
			d.flatTops = append(d.flatTops, Span{Start: c.off + t.Start, End: c.off + t.End})
		}
	}
	return d.flatTops
}

// replaceItems replaces the items [i0, i1) by repl (chunked.replace).
func (d *Document) replaceItems(i0, i1 int, repl []*Item, delta, dTop int) {
	d.items.replace(i0, i1, repl, delta, dTop)
	d.flat = nil
}

// replaceTops replaces the top-level spans [k0, k1) by repl
// (chunked.replace).
func (d *Document) replaceTops(k0, k1 int, repl []Span, delta int) {
	d.tops.replace(k0, k1, repl, delta, 0)
	d.flatTops = nil
}
