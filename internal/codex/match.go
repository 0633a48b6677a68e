package codex

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// Matching: an entry is mentioned where one of its names occurs as
// consecutive words, each word in any of its forms (textnorm.Term: the
// same stem or a shared name-paradigm key, so `Симонов` finds `Симонову`
// and `Collins` finds `Collinses`). A word written with a capital letter in
// a name matches only words written with a capital letter (or in capitals),
// so the surname `Long` is not the adjective `long`. Words of one name may
// be separated by white space and one full stop (`Mr. Darcy`, `Ф. К.
// Штейн`), nothing else.
//
// The longest name wins: where a name of one entry lies inside a longer
// name of another (`Darcy` inside `Miss Darcy`), only the longer one is a
// mention. Two entries with the same name are both mentioned.

// Mention is one occurrence of an entry's name in a text.
type Mention struct {
	Entry string `json:"entry"` // the entry's ID
	Name  string `json:"name"`  // the name as the entry lists it
	Text  string `json:"text"`  // the words as the text has them
	Start int    `json:"start"` // byte offsets in the text
	End   int    `json:"end"`
}

// aword is one distinct word of the names.
type aword struct {
	term    textnorm.Term
	capital bool
}

// name is one name of an entry as a sequence of words.
type name struct {
	entry int
	text  string
	words []int // aword indices
}

// Matcher finds the mentions of a codex's entries in texts. It is safe for
// concurrent use.
type Matcher struct {
	ids      []string // entry index → ID
	words    []aword
	byPrefix map[string][]int // folded prefix → aword indices
	names    []name
	byFirst  map[int][]int // aword → names starting with it

	mu    sync.Mutex
	cache map[string][]int // surface word → the awords it matches
}

// NewMatcher compiles the names of entries.
func NewMatcher(entries []Entry) *Matcher {
	m := &Matcher{byPrefix: map[string][]int{}, byFirst: map[int][]int{}, cache: map[string][]int{}}
	wordIdx := map[string]int{}
	for ei, e := range entries {
		m.ids = append(m.ids, e.ID)
		for _, n := range e.Names() {
			nm := name{entry: ei, text: n}
			for _, sp := range textnorm.Spans(n) {
				w := n[sp.Start:sp.End]
				k, ok := wordIdx[w]
				if !ok {
					k = len(m.words)
					wordIdx[w] = k
					t := textnorm.NewTerm(w)
					m.words = append(m.words, aword{term: t, capital: t.Capital})
					for _, p := range t.Prefixes() {
						if p != "" && !slices.Contains(m.byPrefix[p], k) {
							m.byPrefix[p] = append(m.byPrefix[p], k)
						}
					}
				}
				nm.words = append(nm.words, k)
			}
			if len(nm.words) > 0 {
				m.byFirst[nm.words[0]] = append(m.byFirst[nm.words[0]], len(m.names))
				m.names = append(m.names, nm)
			}
		}
	}
	return m
}

// wordMatches returns the awords a surface word is a form of.
func (m *Matcher) wordMatches(w string) []int {
	m.mu.Lock()
	got, ok := m.cache[w]
	m.mu.Unlock()
	if ok {
		return got
	}
	f := textnorm.Fold(w)
	var cand []int
	for i := range f {
		if i == 0 {
			continue
		}
		cand = append(cand, m.byPrefix[f[:i]]...)
	}
	cand = append(cand, m.byPrefix[f]...)
	slices.Sort(cand)
	cand = slices.Compact(cand)
	capital := startsUpper(w)
	var out []int
	for _, k := range cand {
		a := m.words[k]
		if a.capital && !capital {
			continue
		}
		if a.term.Matches(w) {
			out = append(out, k)
		}
	}
	m.mu.Lock()
	m.cache[w] = out
	m.mu.Unlock()
	return out
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// occurrence is a name found at word i spanning n words.
type occurrence struct {
	name, i, n int
}

// Scan returns the mentions in text, in text order, after the longest
// name won (see the package rules).
func (m *Matcher) Scan(text string) []Mention {
	if len(m.names) == 0 {
		return nil
	}
	spans := textnorm.Spans(text)
	sets := make([][]int, len(spans))
	found := false
	for i, sp := range spans {
		sets[i] = m.wordMatches(text[sp.Start:sp.End])
		found = found || len(sets[i]) > 0
	}
	if !found {
		return nil
	}
	var occ []occurrence
	for i := range spans {
		for _, aw := range sets[i] {
			for _, ni := range m.byFirst[aw] {
				if n := m.names[ni]; m.fits(text, spans, sets, i, n.words) {
					occ = append(occ, occurrence{ni, i, len(n.words)})
				}
			}
		}
	}
	kept := m.longest(occ)
	out := make([]Mention, len(kept))
	for k, o := range kept {
		n := m.names[o.name]
		start, end := spans[o.i].Start, spans[o.i+o.n-1].End
		out[k] = Mention{Entry: m.ids[n.entry], Name: n.text, Text: text[start:end], Start: start, End: end}
	}
	return out
}

// fits reports whether the name's words follow word i.
func (m *Matcher) fits(text string, spans []textnorm.Span, sets [][]int, i int, words []int) bool {
	if i+len(words) > len(spans) {
		return false
	}
	for k := 1; k < len(words); k++ {
		if !slices.Contains(sets[i+k], words[k]) || !joins(text[spans[i+k-1].End:spans[i+k].Start]) {
			return false
		}
	}
	return true
}

// joins reports whether the text between two words of a name may join
// them: white space and at most one full stop.
func joins(gap string) bool {
	if strings.Count(gap, ".") > 1 {
		return false
	}
	for _, r := range gap {
		if r != '.' && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// longest keeps the occurrences no longer occurrence of another entry
// overlaps, one per entry and place, in text order.
func (m *Matcher) longest(occ []occurrence) []occurrence {
	sort.SliceStable(occ, func(a, b int) bool {
		if occ[a].n != occ[b].n {
			return occ[a].n > occ[b].n
		}
		return occ[a].i < occ[b].i
	})
	var kept []occurrence
	for _, o := range occ {
		e := m.names[o.name].entry
		drop := false
		for _, k := range kept {
			if k.i < o.i+o.n && o.i < k.i+k.n && (k.n > o.n || m.names[k.name].entry == e) {
				drop = true
				break
			}
		}
		if !drop {
			kept = append(kept, o)
		}
	}
	sort.SliceStable(kept, func(a, b int) bool { return kept[a].i < kept[b].i })
	return kept
}

// Entries returns the IDs of the entries mentioned in text, each once, in
// order of first mention.
func (m *Matcher) Entries(text string) []string {
	var out []string
	for _, x := range m.Scan(text) {
		if !slices.Contains(out, x.Entry) {
			out = append(out, x.Entry)
		}
	}
	return out
}

// Mentions reports whether the entry with this ID is mentioned in text.
func (m *Matcher) Mentions(text, id string) bool {
	for _, x := range m.Scan(text) {
		if x.Entry == id {
			return true
		}
	}
	return false
}

// SameName reports whether two names are one name in different forms:
// the same number of words, each a form of the other's (Антон Антоныч
// and Антона Антоныча; Darcy and Darcy's).
func SameName(a, b string) bool {
	m := NewMatcher([]Entry{{ID: "a", Name: a}})
	ms := m.Scan(b)
	return len(ms) == 1 && ms[0].Start == 0 && ms[0].End == len(b)
}
