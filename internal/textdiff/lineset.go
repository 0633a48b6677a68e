package textdiff

import (
	"encoding/binary"
	"math/bits"
)

// hashLines returns a hash of each line. Equal lines get equal hashes;
// unequal lines rarely do, and every match is confirmed byte by byte.
func hashLines(lines [][]byte) []uint32 {
	h := make([]uint32, len(lines))
	for i, l := range lines {
		h[i] = hashLine(l)
	}
	return h
}

// hashLine is a fast multiply-mix hash over 8-byte words. Unlike
// hash/maphash it is the same on every run, which keeps diffs
// deterministic.
func hashLine(l []byte) uint32 {
	const k0, k1 = 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9
	h := uint64(len(l)) * k0
	for ; len(l) >= 8; l = l[8:] {
		hi, lo := bits.Mul64(h^binary.LittleEndian.Uint64(l), k1)
		h = hi ^ lo
	}
	var tail uint64
	for i, c := range l {
		tail |= uint64(c) << (8 * i)
	}
	hi, lo := bits.Mul64(h^tail, k0)
	h = hi ^ lo
	return uint32(h ^ h>>32)
}

// lineSet is a set of line hashes that may answer yes wrongly but never
// no wrongly (a one-hash Bloom filter), small enough to stay in cache.
type lineSet struct {
	bits  []uint64
	shift uint
}

// newLineSet returns a set for about n hashes, with 8 to 16 bits each.
func newLineSet(n int) lineSet {
	k := uint(6)
	for 1<<k < 8*n && k < 32 {
		k++
	}
	return lineSet{bits: make([]uint64, 1<<(k-6)), shift: 32 - k}
}

func (s lineSet) add(h uint32) {
	i := h >> s.shift
	s.bits[i>>6] |= 1 << (i & 63)
}

func (s lineSet) has(h uint32) bool {
	i := h >> s.shift
	return s.bits[i>>6]&(1<<(i&63)) != 0
}

// seq is the part of a text's lines given to the Myers search: the
// hashes of the kept lines and their indexes among all the lines.
type seq struct {
	h     []uint32
	idx   []int32
	lines [][]byte
}

// line returns the i-th kept line.
func (s *seq) line(i int) []byte { return s.lines[s.idx[i]] }

// keep returns the lines whose hash may occur in other, and marks the
// rest, which surely do not occur there, as changed.
func keep(lines [][]byte, h []uint32, other lineSet, changed []bool) seq {
	s := seq{make([]uint32, 0, len(h)), make([]int32, 0, len(h)), lines}
	for i, v := range h {
		if !other.has(v) {
			changed[i] = true
			continue
		}
		s.h, s.idx = append(s.h, v), append(s.idx, int32(i))
	}
	return s
}
