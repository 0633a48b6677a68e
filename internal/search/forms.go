package search

import (
	"slices"
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

// vocab is the lexicon's surface words sorted by folded form.
type vocab struct {
	folded []string
	words  []string
	terms  []termID
	byTerm map[termID][]int // term → indices of its words
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
	v := &vocab{byTerm: map[termID][]int{}}
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
	for i, r := range rows {
		v.folded = append(v.folded, r.f)
		v.words = append(v.words, r.w)
		v.terms = append(v.terms, r.t)
		v.byTerm[r.t] = append(v.byTerm[r.t], i)
	}
	c.v = v
	return v
}

// expand returns the terms of the index's words that match t, and those of
// them that also hold words that do not.
func (l *lexicon) expand(t textnorm.Term) ([]termID, map[termID]bool) {
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
		for i, _ := slices.BinarySearch(v.folded, p); i < len(v.folded) && strings.HasPrefix(v.folded[i], p); i++ {
			if id := v.terms[i]; !seen[id] && t.Matches(v.words[i]) {
				seen[id] = true
				terms = append(terms, id)
			}
		}
	}
	var impure map[termID]bool
	for _, id := range terms {
		if l.stems[id] == t.Stem && !t.Capital {
			continue // every word of t's own stem matches
		}
		for _, i := range v.byTerm[id] {
			if !t.Matches(v.words[i]) {
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
	terms, impure := x.lex.expand(t)
	switch {
	case len(terms) == 0:
		return nil
	case len(terms) == 1 && len(impure) == 0:
		return x.post[terms[0]]
	}
	type acc struct {
		tf   int32
		pure bool
	}
	byItem := map[int32]*acc{}
	for _, id := range terms {
		for _, p := range x.post[id] {
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
		if a.pure || t.MatchText(x.items[item].text) {
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
