package textnorm

import (
	"strings"
	"sync"
	"sync/atomic"
)

const (
	// maxMatcherCache bounds the number of words a Matcher remembers.
	maxMatcherCache = 1 << 16
	// maxPrefixTerms bounds the keyword size for which the Russian
	// prefix shortcut is cheaper than the cache.
	maxPrefixTerms = 8
)

// Matcher tests texts for a keyword of one or more words. Build it with
// NewMatcher; it is safe for concurrent use.
type Matcher struct {
	terms []string       // distinct stems of the keyword, in keyword order
	pos   map[string]int // stem -> index into terms
	cache sync.Map       // surface word (cloned) -> int index into terms, -1 if none
	size  atomic.Int32
}

// NewMatcher compiles keyword: its words are tokenized, folded and
// stemmed exactly like the texts it will be matched against.
func NewMatcher(keyword string) *Matcher {
	m := &Matcher{pos: map[string]int{}}
	for _, t := range Terms(keyword) {
		if _, dup := m.pos[t]; !dup {
			m.pos[t] = len(m.terms)
			m.terms = append(m.terms, strings.Clone(t))
		}
	}
	return m
}

// Terms returns the distinct stems the keyword requires, in keyword
// order. The caller must not modify the slice.
func (m *Matcher) Terms() []string { return m.terms }

// Match reports whether every word of the keyword occurs in text, in any
// order, compared by stem. A keyword without words matches nothing.
func (m *Matcher) Match(text string) bool {
	n := len(m.terms)
	if n == 0 {
		return false
	}
	var small [16]bool
	found := small[:]
	if n > len(small) {
		found = make([]bool, n)
	}
	for i := 0; ; {
		start, end, ok := nextWord(text, i)
		if !ok {
			return false
		}
		i = end
		if k := m.lookup(text[start:end]); k >= 0 && !found[k] {
			found[k] = true
			if n--; n == 0 {
				return true
			}
		}
	}
}

// index returns the index of stem in m.terms, or -1.
func (m *Matcher) index(stem string) int {
	if k, ok := m.pos[stem]; ok {
		return k
	}
	return -1
}

// lookup returns the index of the keyword term the word stems to, or
// -1. Results are cached by surface form, up to maxMatcherCache words.
func (m *Matcher) lookup(word string) int {
	if k, ok := m.cache.Load(word); ok {
		return k.(int)
	}
	norm := Fold(word)
	script := DetectScript(norm)
	k := -1
	// Russian Snowball only removes suffixes, so the stem of a Cyrillic
	// word is a prefix of it (checked by the tests): skip the stemmer
	// when no term can match.
	if script != ScriptCyrillic || len(m.terms) > maxPrefixTerms || m.anyPrefix(norm) {
		k = m.index(stemNorm(norm, script))
	}
	if m.size.Load() < maxMatcherCache {
		m.size.Add(1)
		m.cache.Store(strings.Clone(word), k)
	}
	return k
}

// anyPrefix reports whether some keyword term is a prefix of norm.
func (m *Matcher) anyPrefix(norm string) bool {
	for _, t := range m.terms {
		if strings.HasPrefix(norm, t) {
			return true
		}
	}
	return false
}

// MatchPhrase finds the exact, normalised occurrences of phrase in text:
// the folded words of phrase must occur as consecutive words of text.
// Case, ё/е, and the white space and punctuation between words are
// ignored. It returns the byte spans in text (from the start of the
// first word to the end of the last), left to right and
// non-overlapping, or nil if phrase has no words.
func MatchPhrase(text, phrase string) []Span {
	var want []string
	for _, sp := range Spans(phrase) {
		want = append(want, Fold(phrase[sp.Start:sp.End]))
	}
	var buf []byte
	return findPhrase(text, len(want), func(w string, k int) bool {
		buf = appendFold(buf[:0], w, 0) // reused: no allocation per word
		return string(buf) == want[k]
	})
}

// MatchStemPhrase is MatchPhrase comparing words by stem instead of by
// folded form, so "звёздочкину сказал" finds "Звездочкин сказала".
func MatchStemPhrase(text, phrase string) []Span {
	var st stemmer
	var want []string
	for _, sp := range Spans(phrase) {
		want = append(want, st.word(phrase[sp.Start:sp.End]).stem)
	}
	return findPhrase(text, len(want), func(w string, k int) bool {
		return st.word(w).stem == want[k]
	})
}

// findPhrase returns the non-overlapping spans of n consecutive words
// w0, w1, ... of text such that eq(w0, 0), eq(w1, 1), ... all hold.
func findPhrase(text string, n int, eq func(word string, k int) bool) []Span {
	if n == 0 {
		return nil
	}
	var spans []Span
	for i := 0; ; {
		start, end, ok := nextWord(text, i)
		if !ok {
			return spans
		}
		i = end
		if !eq(text[start:end], 0) {
			continue
		}
		if last, ok := matchRest(text, end, n, eq); ok {
			spans = append(spans, Span{start, last})
			i = last
		}
	}
}

// matchRest reports whether words 1..n-1 of the phrase follow byte i of
// text, and returns the end of the last of them.
func matchRest(text string, i, n int, eq func(string, int) bool) (int, bool) {
	for k := 1; k < n; k++ {
		start, end, ok := nextWord(text, i)
		if !ok || !eq(text[start:end], k) {
			return 0, false
		}
		i = end
	}
	return i, true
}
