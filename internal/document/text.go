package document

import (
	"bytes"
	"sort"
)

// Text is a source held as pieces: byte slices that, one after the other,
// are the source. An edit makes the document's next Text from the pieces
// of the last one and the edit's new bytes (Splice), so an edit copies
// only what it inserts, never the whole book; the pieces are never
// modified, so every earlier Text (and every item text that refers to one)
// stays valid. The zero Text is empty.
type Text struct {
	parts [][]byte // non-empty
	ends  []int    // ends[k] is the offset just after parts[k]
}

// maxPieces bounds the pieces of a document's source: an edit that leaves
// more joins them into one (a copy of the book once every so many edits,
// so an offset is found among a few pieces). An edit copies the list of
// pieces (Splice), a cost that does not grow with the book; the join
// does, once in maxPieces/2 edits or so: at 2048, a join of a 45 MB book
// costs its edits ~45 KB of copying each on average, the list ~32 KB.
const maxPieces = 2048

// TextOf returns b as a Text (without copying it).
func TextOf(b []byte) Text {
	if len(b) == 0 {
		return Text{}
	}
	return Text{parts: [][]byte{b}, ends: []int{len(b)}}
}

// Len returns the length in bytes.
func (t Text) Len() int {
	if len(t.ends) == 0 {
		return 0
	}
	return t.ends[len(t.ends)-1]
}

// Parts returns the pieces in order (none for an empty Text). They must
// not be modified.
func (t Text) Parts() [][]byte { return t.parts }

// piece returns the index of the piece holding offset i (0 <= i < Len)
// and the offset that piece starts at.
func (t Text) piece(i int) (int, int) {
	k := 0
	if len(t.ends) > 1 {
		k = sort.SearchInts(t.ends, i+1)
	}
	if k == 0 {
		return 0, 0
	}
	return k, t.ends[k-1]
}

// At returns the byte at offset i (0 <= i < Len).
func (t Text) At(i int) byte {
	k, s := t.piece(i)
	return t.parts[k][i-s]
}

// Slice returns the bytes [a, b): a piece of a piece without copying when
// they lie in one, else a copy. The slice must not be modified.
func (t Text) Slice(a, b int) []byte {
	if a >= b {
		return nil
	}
	k, s := t.piece(a)
	if b <= t.ends[k] {
		return t.parts[k][a-s : b-s : b-s]
	}
	out := make([]byte, 0, b-a)
	for a < b {
		n := min(b, t.ends[k]) - a
		out = append(out, t.parts[k][a-s:a-s+n]...)
		a += n
		s = t.ends[k]
		k++
	}
	return out
}

// Bytes returns the whole Text as one slice: its only piece, or a copy
// joining the pieces.
func (t Text) Bytes() []byte {
	switch len(t.parts) {
	case 0:
		return nil
	case 1:
		return t.parts[0]
	}
	return bytes.Join(t.parts, nil)
}

// Splice returns the Text with the n bytes from start on replaced by
// insert (which it keeps: the caller must not modify it). The receiver is
// unchanged; the result shares its pieces.
func (t Text) Splice(start, n int, insert []byte) Text {
	end, delta := start+n, len(insert)-n
	a := sort.SearchInts(t.ends, start+1) // the piece holding start, or len
	b := sort.SearchInts(t.ends, end+1)   // the piece holding end, or len
	out := Text{parts: make([][]byte, a, len(t.parts)+2), ends: make([]int, a, len(t.parts)+2)}
	copy(out.parts, t.parts[:a]) // the pieces before start, as they are
	copy(out.ends, t.ends[:a])
	add := func(b []byte) {
		if len(b) > 0 {
			out.parts = append(out.parts, b)
			out.ends = append(out.ends, out.Len()+len(b))
		}
	}
	if a < len(t.parts) {
		add(t.parts[a][:start-t.pieceStart(a)])
	}
	add(insert)
	if b < len(t.parts) {
		add(t.parts[b][end-t.pieceStart(b):])
		out.parts = append(out.parts, t.parts[b+1:]...) // the pieces after end, moved
		for _, e := range t.ends[b+1:] {
			out.ends = append(out.ends, e+delta)
		}
	}
	return out
}

// pieceStart returns the offset piece k starts at.
func (t Text) pieceStart(k int) int {
	if k == 0 {
		return 0
	}
	return t.ends[k-1]
}

// IndexByte returns the offset of the first c at or after from, or -1.
func (t Text) IndexByte(from int, c byte) int {
	if from >= t.Len() {
		return -1
	}
	k, s := t.piece(max(from, 0))
	for from = max(from, 0); k < len(t.parts); k++ {
		if j := bytes.IndexByte(t.parts[k][from-s:], c); j >= 0 {
			return from + j
		}
		from, s = t.ends[k], t.ends[k]
	}
	return -1
}

// LastIndexByte returns the offset of the last c before before, or -1.
func (t Text) LastIndexByte(before int, c byte) int {
	before = min(before, t.Len())
	if before <= 0 {
		return -1
	}
	k, s := t.piece(before - 1)
	for ; k >= 0; k-- {
		if j := bytes.LastIndexByte(t.parts[k][:before-s], c); j >= 0 {
			return s + j
		}
		if k > 0 {
			before = s
			s -= len(t.parts[k-1])
		}
	}
	return -1
}
