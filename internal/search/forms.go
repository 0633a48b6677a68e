package search

import (
	"encoding/binary"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// Query words match every form of themselves (textnorm.Term.Matches: the
// same stem or a shared name-paradigm key). The postings are kept by stem,
// so a query word's items are the union of the postings of the terms of
// the index's words that match it: the vocabulary (every surface word of
// the book) is searched by the prefixes the matching words must start
// with, and each candidate is checked. A term holding words that do not
// match as well as words that do (the lion `льва` beside the name `Льва`)
// is impure: its items are checked word by word, so the result is exactly
// the items holding a matching word.

// vocabCache holds the vocabulary, built on first use after the lexicon
// last gained a word.
type vocabCache struct {
	mu sync.Mutex
	v  *vocab
}

// vocab is the lexicon's surface words sorted by folded form (then by
// the word itself), packed: u32 offsets into string bytes, each word's
// term, and per term the indices of its words. An encoded index holds the
// same bytes (frozen.go).
type vocab struct {
	n                 int
	foldOff, folds    []byte
	wordOff, words    []byte
	terms             []byte
	byTermOff, byTerm []byte
}

func (v *vocab) len() int            { return v.n }
func (v *vocab) folded(i int) string { return packedString(v.foldOff, v.folds, i) }
func (v *vocab) word(i int) string   { return packedString(v.wordOff, v.words, i) }
func (v *vocab) term(i int) termID {
	if i < 0 || 4*i+4 > len(v.terms) {
		return -1
	}
	return termID(binary.LittleEndian.Uint32(v.terms[4*i:]))
}

// wordsOf returns the indices of the words of a term.
func (v *vocab) wordsOf(t termID) []byte {
	if t < 0 || int(t)+1 >= len(v.byTermOff)/4 {
		return nil
	}
	s, e := binary.LittleEndian.Uint32(v.byTermOff[4*t:]), binary.LittleEndian.Uint32(v.byTermOff[4*t+4:])
	if s > e || int(e) > len(v.byTerm)/4 {
		return nil
	}
	return v.byTerm[4*s : 4*e]
}

func (c *vocabCache) reset() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.v = nil
	c.mu.Unlock()
}

// vocabulary returns the sorted vocabulary, building it if needed.
func (l *lexicon) vocabulary() *vocab {
	c := l.vc
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.v != nil {
		return c.v
	}
	type row struct {
		f, w string
		t    termID
	}
	rows := make([]row, 0, len(l.words))
	for w, t := range l.words {
		rows = append(rows, row{textnorm.Fold(w), w, t})
	}
	slices.SortFunc(rows, func(a, b row) int {
		if c := strings.Compare(a.f, b.f); c != 0 {
			return c
		}
		return strings.Compare(a.w, b.w)
	})
	v := &vocab{n: len(rows)}
	byTerm := make([][]uint32, len(l.stems))
	le := binary.LittleEndian
	for i, r := range rows {
		v.foldOff = le.AppendUint32(v.foldOff, uint32(len(v.folds)))
		v.folds = append(v.folds, r.f...)
		v.wordOff = le.AppendUint32(v.wordOff, uint32(len(v.words)))
		v.words = append(v.words, r.w...)
		v.terms = le.AppendUint32(v.terms, uint32(r.t))
		byTerm[r.t] = append(byTerm[r.t], uint32(i))
	}
	v.foldOff = le.AppendUint32(v.foldOff, uint32(len(v.folds)))
	v.wordOff = le.AppendUint32(v.wordOff, uint32(len(v.words)))
	for _, ws := range byTerm {
		v.byTermOff = le.AppendUint32(v.byTermOff, uint32(len(v.byTerm)/4))
		for _, w := range ws {
			v.byTerm = le.AppendUint32(v.byTerm, w)
		}
	}
	v.byTermOff = le.AppendUint32(v.byTermOff, uint32(len(v.byTerm)/4))
	c.v = v
	return v
}

// expand returns the terms of the index's words that match t, and those of
// them that also hold words that do not.
func expand(l lexView, t textnorm.Term) ([]termID, map[termID]bool) {
	var terms []termID
	if id, ok := l.term(t.Stem); ok {
		terms = append(terms, id) // every word of t's own stem matches
	}
	if len(t.Keys) == 0 && !t.Capital {
		return terms, nil
	}
	v := l.vocabulary()
	seen := map[termID]bool{}
	for _, id := range terms {
		seen[id] = true
	}
	for _, p := range t.Prefixes() {
		i := sort.Search(v.len(), func(i int) bool { return v.folded(i) >= p })
		for ; i < v.len() && strings.HasPrefix(v.folded(i), p); i++ {
			if id := v.term(i); !seen[id] && t.Matches(v.word(i)) {
				seen[id] = true
				terms = append(terms, id)
			}
		}
	}
	var impure map[termID]bool
	for _, id := range terms {
		if l.stem(id) == t.Stem && !t.Capital {
			continue // every word of t's own stem matches
		}
		ws := v.wordsOf(id)
		for k := 0; k < len(ws); k += 4 {
			if !t.Matches(v.word(int(binary.LittleEndian.Uint32(ws[k:])))) {
				if impure == nil {
					impure = map[termID]bool{}
				}
				impure[id] = true
				break
			}
		}
	}
	return terms, impure
}

// group returns the postings of the items holding a word that matches t,
// sorted by item, with tf the occurrences of its terms. Items reached only
// through impure terms are kept only if their text holds a matching word.
func (x *Index) group(t textnorm.Term) []posting {
	terms, impure := expand(x.lexv(), t)
	switch {
	case len(terms) == 0:
		return nil
	case len(terms) == 1 && len(impure) == 0:
		return x.postingsOf(terms[0])
	}
	type acc struct {
		tf   int32
		pure bool
	}
	byItem := map[int32]*acc{}
	for _, id := range terms {
		for _, p := range x.postingsOf(id) {
			a := byItem[p.item]
			if a == nil {
				a = &acc{}
				byItem[p.item] = a
			}
			a.tf += p.tf
			a.pure = a.pure || !impure[id]
		}
	}
	out := make([]posting, 0, len(byItem))
	for item, a := range byItem {
		if a.pure || x.matchText(t, item) {
			out = append(out, posting{item: item, tf: a.tf})
		}
	}
	slices.SortFunc(out, func(a, b posting) int { return int(a.item - b.item) })
	return out
}

// groups returns the postings of each term, or nil if some term matches
// nothing (then no item holds them all).
func (x *Index) groups(terms []textnorm.Term) [][]posting {
	lists := make([][]posting, 0, len(terms))
	for _, t := range terms {
		g := x.group(t)
		if len(g) == 0 {
			return nil
		}
		lists = append(lists, g)
	}
	return lists
}

// stemTerms turns stems into terms without name keys.
func stemTerms(stems []string) []textnorm.Term {
	out := make([]textnorm.Term, len(stems))
	for i, s := range stems {
		out[i] = textnorm.Term{Stem: s}
	}
	return out
}
