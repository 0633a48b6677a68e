package search

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"strings"
)

// wordTable interns words as dense IDs 0, 1, 2, ... in order of first
// sight. It is the build's hot path (one lookup per word of the book), so
// it is an open-addressing table whose slots hold a word's first 16 bytes
// and its length: a lookup reads the word a machine word at a time, hashes
// those words, and compares them with one slot, touching the word's bytes
// in the arena only for the rare word longer than 16 bytes (8 Cyrillic
// letters). It allocates nothing but for a new word.
type wordTable struct {
	seed  [2]uint64 // random, so no text can be made to collide on purpose
	slots []wordSlot
	words []string // ID → word, in the arena
	arena strings.Builder
}

// wordSlot is a slot of a wordTable.
type wordSlot struct {
	head [2]uint64 // the word's first 16 bytes, little-endian, zero-padded
	meta uint64    // 0 if empty, else the word's length << 32 | ID+1
}

// headLen is the number of a word's bytes a slot holds.
const headLen = 16

// arenaBlock is the size of a wordTable arena block.
const arenaBlock = 32 << 10

// init makes t empty, sized for about n words.
func (t *wordTable) init(seed maphash.Seed, n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	*t = wordTable{
		seed:  [2]uint64{maphash.String(seed, "a"), maphash.String(seed, "b")},
		slots: make([]wordSlot, size),
		words: make([]string, 0, size/2), // as many as fit before grow
	}
}

// le64 returns the 8 bytes of s at i as a little-endian word (one load).
func le64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// headMask[n] masks the first 16 bytes of a text to the n ≤ 16 of a word.
var headMask = func() (m [headLen + 1][2]uint64) {
	for n := range m {
		for k := range n {
			m[n][k/8] |= 0xFF << (8 * (k % 8))
		}
	}
	return m
}()

// head returns the first 16 bytes of the word s[start:end] as two
// little-endian words, zero-padded.
func head(s string, start, end int) (a, b uint64) {
	if start+headLen > len(s) {
		return headNear(s, start, end)
	}
	m := &headMask[min(end-start, headLen)] // read past the word, within s
	return le64(s, start) & m[0], le64(s, start+8) & m[1]
}

// headNear is head for a word less than 16 bytes from the end of s.
func headNear(s string, start, end int) (a, b uint64) {
	var w [headLen]byte
	copy(w[:], s[start:min(end, start+headLen)])
	return binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])
}

// mix folds two words into one hash (a multiply whose high and low
// halves are xor-ed, as wyhash does).
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hash returns the hash of the word s[start:end] whose head is a, b.
func (t *wordTable) hash(s string, start, end int, a, b uint64) uint64 {
	h := mix(a^t.seed[0], b^t.seed[1]^uint64(end-start))
	for i := start + headLen; i < end; i += headLen {
		c, d := head(s, i, end)
		h = mix(h^c^t.seed[0], d^t.seed[1])
	}
	return h
}

// id returns the ID of the word s[start:end], adding it if new. s is not
// retained: a new word is copied into the arena. This is the path of a
// known word of at most 16 bytes not at the very end of s; the rest is
// idSlow's.
func (t *wordTable) id(s string, start, end int) int32 {
	n := end - start
	if n > headLen || start+headLen > len(s) {
		return t.idSlow(s, start, end)
	}
	m := &headMask[n] // read past the word, within s
	a, b := le64(s, start)&m[0], le64(s, start+8)&m[1]
	meta := uint64(n) << 32
	mask := uint64(len(t.slots) - 1)
	for i := mix(a^t.seed[0], b^t.seed[1]^uint64(n)) & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.meta == 0 {
			return t.idSlow(s, start, end) // a new word
		}
		if sl.head[0] == a && sl.head[1] == b && sl.meta&^(1<<32-1) == meta {
			return int32(uint32(sl.meta) - 1)
		}
	}
}

// idSlow is id for any word.
func (t *wordTable) idSlow(s string, start, end int) int32 {
	a, b := head(s, start, end)
	n := end - start
	meta := uint64(n) << 32
	mask := uint64(len(t.slots) - 1)
	for i := t.hash(s, start, end, a, b) & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.meta == 0 {
			return t.add(i, a, b, s[start:end])
		}
		if sl.head[0] == a && sl.head[1] == b && sl.meta&^(1<<32-1) == meta {
			id := int32(uint32(sl.meta) - 1)
			if n <= headLen || t.words[id][headLen:] == s[start+headLen:end] {
				return id
			}
		}
	}
}

// add stores w, a new word whose head is a, b, in slot i.
func (t *wordTable) add(i, a, b uint64, w string) int32 {
	if t.arena.Cap()-t.arena.Len() < len(w) {
		t.arena = strings.Builder{} // earlier strings keep the old block
		t.arena.Grow(max(arenaBlock, len(w)))
	}
	start := t.arena.Len()
	t.arena.WriteString(w)
	w = t.arena.String()[start:] // the block is never reallocated
	id := int32(len(t.words))
	t.words = append(t.words, w)
	t.slots[i] = wordSlot{[2]uint64{a, b}, uint64(len(w))<<32 | uint64(id+1)}
	if 2*len(t.words) > len(t.slots) {
		t.grow()
	}
	return id
}

// grow doubles the slots, keeping the IDs.
func (t *wordTable) grow() {
	t.slots = make([]wordSlot, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id, w := range t.words {
		a, b := head(w, 0, len(w))
		i := t.hash(w, 0, len(w), a, b) & mask
		for t.slots[i].meta != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = wordSlot{[2]uint64{a, b}, uint64(len(w))<<32 | uint64(id+1)}
	}
}
