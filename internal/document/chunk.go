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

// chunk is a run of consecutive items: idx is the Index of its first item,
// off the offset and top the top-level block its numbers count from.
type chunk struct {
	off, idx, top int
	items         []*Item
}

// topChunk is a run of consecutive top-level spans: idx is the index of its
// first span, off the offset its spans count from.
type topChunk struct {
	off, idx int
	spans    []Span
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

// setItems puts items, whose numbers are absolute, into fresh chunks.
func (d *Document) setItems(items []*Item) {
	d.chunks, d.n, d.flat = d.chunks[:0], len(items), nil
	d.chunks = append(d.chunks, newChunks(items)...)
}

// newChunks puts items with absolute numbers into chunks.
func newChunks(items []*Item) []*chunk {
	var out []*chunk
	for from, to := range runs(len(items)) {
		first := items[from]
		c := &chunk{off: first.Start(), idx: first.Index(), top: first.Top(), items: items[from:to:to]}
		for _, it := range c.items {
			it.index, it.start, it.end, it.top = it.Index()-c.idx, it.Start()-c.off, it.End()-c.off, it.Top()-c.top
			it.c = c
		}
		out = append(out, c)
	}
	return out
}

// setTops puts absolute spans into fresh chunks.
func (d *Document) setTops(tops []Span) {
	d.tchunks, d.ntops, d.flatTops = d.tchunks[:0], len(tops), nil
	d.tchunks = append(d.tchunks, newTopChunks(tops, 0)...)
}

// newTopChunks puts absolute spans, the first of them top k, into chunks.
func newTopChunks(tops []Span, k int) []*topChunk {
	var out []*topChunk
	for from, to := range runs(len(tops)) {
		c := &topChunk{off: tops[from].Start, idx: k + from, spans: make([]Span, to-from)}
		for i, t := range tops[from:to] {
			c.spans[i] = Span{Start: t.Start - c.off, End: t.End - c.off}
		}
		out = append(out, c)
	}
	return out
}

// locate returns the position in chunks of the one holding element i,
// where first gives the index of a chunk's first element.
func locate[C any](chunks []C, first func(C) int, i int) int {
	return sort.Search(len(chunks), func(k int) bool { return first(chunks[k]) > i }) - 1
}

// touched returns the chunks [a, b] holding the n elements' [i0, i1), or
// the one i0 falls in (the last for i0 == n) when the range is empty.
func touched[C any](chunks []C, first func(C) int, n, i0, i1 int) (int, int) {
	a := locate(chunks, first, min(i0, n-1))
	if i1 > i0 {
		return a, locate(chunks, first, i1-1)
	}
	return a, a
}

func (c *chunk) first() int    { return c.idx }
func (c *topChunk) first() int { return c.idx }

// chunkOf returns the position in d.chunks of the chunk holding item i
// (0 <= i < d.n).
func (d *Document) chunkOf(i int) int { return locate(d.chunks, (*chunk).first, i) }

// topChunkOf returns the position in d.tchunks of the chunk holding top k.
func (d *Document) topChunkOf(k int) int { return locate(d.tchunks, (*topChunk).first, k) }

// at returns item i of a document that is not lazy (0 <= i < d.n).
func (d *Document) at(i int) *Item {
	c := d.chunks[d.chunkOf(i)]
	return c.items[i-c.idx]
}

// walk yields the items [from, to) of a document that is not lazy, in
// order.
func (d *Document) walk(from, to int) iter.Seq[*Item] {
	return func(yield func(*Item) bool) {
		if from >= to {
			return
		}
		for k := d.chunkOf(from); k < len(d.chunks) && d.chunks[k].idx < to; k++ {
			c := d.chunks[k]
			for _, it := range c.items[max(0, from-c.idx):min(len(c.items), to-c.idx)] {
				if !yield(it) {
					return
				}
			}
		}
	}
}

// top returns top-level span k (0 <= k < d.ntops) of a document that is
// not lazy.
func (d *Document) top(k int) Span {
	c := d.tchunks[d.topChunkOf(k)]
	t := c.spans[k-c.idx]
	return Span{Start: c.off + t.Start, End: c.off + t.End}
}

// flatItems returns every item of a document that is not lazy in one
// slice, built on the first call after an edit.
func (d *Document) flatItems() []*Item {
	if d.flat == nil {
		d.flat = make([]*Item, 0, d.n)
		for _, c := range d.chunks {
			d.flat = append(d.flat, c.items...)
		}
	}
	return d.flat
}

// flatTopSpans is flatItems for the top-level spans.
func (d *Document) flatTopSpans() []Span {
	if d.flatTops == nil {
		d.flatTops = make([]Span, 0, d.ntops)
		for k := range d.ntops {
			d.flatTops = append(d.flatTops, d.top(k))
		}
	}
	return d.flatTops
}

// replaceItems replaces the items [i0, i1) by repl, whose numbers are
// absolute and final, and moves the items after them by delta bytes, dTop
// top-level blocks and the change in count. Only the chunks holding i0..i1
// (and a short one's neighbour) are rebuilt, in new chunks: an item an
// edit removed keeps the numbers it had.
func (d *Document) replaceItems(i0, i1 int, repl []*Item, delta, dTop int) {
	dn := len(repl) - (i1 - i0)
	d.flat = nil
	if len(d.chunks) == 0 {
		d.setItems(repl)
		return
	}
	a, b := touched(d.chunks, (*chunk).first, d.n, i0, i1)
	ca, cb := d.chunks[a], d.chunks[b]
	items := make([]*Item, 0, i0-ca.idx+len(repl)+len(cb.items)+chunkSize)
	items = append(items, ca.items[:i0-ca.idx]...) // they stay where they are
	items = append(items, repl...)
	moved := len(items)
	items = append(items, cb.items[i1-cb.idx:]...)
	for len(items) < chunkSize/2 && b+1 < len(d.chunks) {
		b++
		items = append(items, d.chunks[b].items...)
	}
	for _, it := range items[moved:] {
		it.index, it.start, it.end, it.top = it.Index()+dn, it.Start()+delta, it.End()+delta, it.Top()+dTop
		it.c = nil
	}
	for _, c := range d.chunks[b+1:] {
		c.off += delta
		c.idx += dn
		c.top += dTop
	}
	d.chunks = slices.Replace(d.chunks, a, b+1, newChunks(items)...)
	d.n += dn
}

// replaceTops replaces the top-level spans [k0, k1) by repl, whose spans
// are absolute and final, and moves the spans after them by delta bytes;
// see replaceItems.
func (d *Document) replaceTops(k0, k1 int, repl []Span, delta int) {
	dk := len(repl) - (k1 - k0)
	d.flatTops = nil
	if len(d.tchunks) == 0 {
		d.setTops(repl)
		return
	}
	a, b := touched(d.tchunks, (*topChunk).first, d.ntops, k0, k1)
	ca, cb := d.tchunks[a], d.tchunks[b]
	tops := make([]Span, 0, k0-ca.idx+len(repl)+len(cb.spans)+chunkSize)
	for _, t := range ca.spans[:k0-ca.idx] { // they stay where they are
		tops = append(tops, Span{Start: ca.off + t.Start, End: ca.off + t.End})
	}
	tops = append(tops, repl...)
	for _, t := range cb.spans[k1-cb.idx:] {
		tops = append(tops, Span{Start: cb.off + t.Start + delta, End: cb.off + t.End + delta})
	}
	for len(tops) < chunkSize/2 && b+1 < len(d.tchunks) {
		b++
		c := d.tchunks[b]
		for _, t := range c.spans {
			tops = append(tops, Span{Start: c.off + t.Start + delta, End: c.off + t.End + delta})
		}
	}
	for _, c := range d.tchunks[b+1:] {
		c.off += delta
		c.idx += dk
	}
	d.tchunks = slices.Replace(d.tchunks, a, b+1, newTopChunks(tops, ca.idx)...)
	d.ntops += dk
}
