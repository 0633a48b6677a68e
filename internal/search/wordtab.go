package search

import (
	"hash/maphash"
	"strings"
)

// wordTable interns words as dense IDs 0, 1, 2, ... in order of first
// sight. It is the build's hot path (one lookup per word of the book), so
// it is an open-addressing table of 8-byte slots whose words live in a
// few compact arena blocks: a lookup touches one slot and, on a tag
// match, the word's bytes, and allocates nothing.
type wordTable struct {
	seed  uint64   // random, so no text can be made to collide on purpose
	slots []uint64 // 0 if empty, else the hash's high 32 bits << 32 | ID+1
	words []string // ID → word, in the arena
	arena strings.Builder
}

// arenaBlock is the size of a wordTable arena block.
const arenaBlock = 32 << 10

// init makes t empty, sized for about n words.
func (t *wordTable) init(seed maphash.Seed, n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	*t = wordTable{seed: maphash.String(seed, "") | 1, slots: make([]uint64, size), words: make([]string, 0, n)}
}

// hash is a seeded FNV-1a of w, finished by a multiply-xorshift so that
// the low bits (the slot) and the high bits (the tag) both depend on every
// byte; inline, it costs a fraction of a call to a general hash on the
// short strings words are.
func (t *wordTable) hash(w string) uint64 {
	h := t.seed
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * 0x100000001b3
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>32
}

// id returns the ID of w, adding it if new. w is not retained: a new
// word is copied into the arena.
func (t *wordTable) id(w string) int32 {
	h := t.hash(w)
	tag := h &^ (1<<32 - 1)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return t.add(i, tag, w)
		}
		if s&^(1<<32-1) == tag && t.words[uint32(s)-1] == w {
			return int32(uint32(s) - 1)
		}
	}
}

// add stores w, a new word, in slot i with the given tag.
func (t *wordTable) add(i, tag uint64, w string) int32 {
	if t.arena.Cap()-t.arena.Len() < len(w) {
		t.arena = strings.Builder{} // earlier strings keep the old block
		t.arena.Grow(max(arenaBlock, len(w)))
	}
	start := t.arena.Len()
	t.arena.WriteString(w)
	w = t.arena.String()[start:] // the block is never reallocated
	id := int32(len(t.words))
	t.words = append(t.words, w)
	t.slots[i] = tag | uint64(id+1)
	if 2*len(t.words) > len(t.slots) {
		t.grow()
	}
	return id
}

// grow doubles the slots, keeping the IDs.
func (t *wordTable) grow() {
	t.slots = make([]uint64, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id, w := range t.words {
		h := t.hash(w)
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = h&^(1<<32-1) | uint64(id+1)
	}
}
