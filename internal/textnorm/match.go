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
	// maxMaskTerms is the number of terms a word's cached match mask holds;
	// a keyword with more distinct words matches them uncached.
	maxMaskTerms = 64
)

// Matcher tests texts for a keyword of one or more words. Build it with
// NewMatcher; it is safe for concurrent use.
type Matcher struct {
	terms    []Term   // distinct terms of the keyword, in keyword order
	prefixes []string // what every Cyrillic lower-case matching word starts with
	cache    sync.Map // surface word (cloned) -> uint64 mask of the terms it matches
	size     atomic.Int32
}

// NewMatcher compiles keyword: its words are analysed (QueryTerms) exactly
// like the texts it will be matched against.
func NewMatcher(keyword string) *Matcher {
	m := &Matcher{terms: QueryTerms(keyword)}
	for _, t := range m.terms {
		m.prefixes = append(m.prefixes, t.Prefixes()...)
	}
	return m
}

// Terms returns the stems of the keyword's distinct terms, in keyword
// order. The caller must not modify the slice.
func (m *Matcher) Terms() []string {
	out := make([]string, len(m.terms))
	for i, t := range m.terms {
		out[i] = t.Stem
	}
	return out
}

// Match reports whether every word of the keyword occurs in text, in any
// order, as a form of itself (Term.Matches: the same stem or a shared
// name-paradigm key). A keyword without words matches nothing.
func (m *Matcher) Match(text string) bool {
	n := len(m.terms)
	if n == 0 {
		return false
	}
	if n > maxMaskTerms {
		return m.matchMany(text)
	}
	want := uint64(1)<<n - 1
	if n == maxMaskTerms {
		want = ^uint64(0)
	}
	var found uint64
	for i := 0; ; {
		start, end, ok := nextWord(text, i)
		if !ok {
			return false
		}
		i = end
		if found |= m.lookup(text[start:end]); found == want {
			return true
		}
	}
}

// matchMany is Match for keywords of more than maxMaskTerms words.
func (m *Matcher) matchMany(text string) bool {
	found := make([]bool, len(m.terms))
	left := len(m.terms)
	for i := 0; ; {
		start, end, ok := nextWord(text, i)
		if !ok {
			return false
		}
		i = end
		w := text[start:end]
		for k, t := range m.terms {
			if !found[k] && t.Matches(w) {
				found[k] = true
				if left--; left == 0 {
					return true
				}
			}
		}
	}
}

// MatchWord reports whether a surface word is a form of some word of the
// keyword.
func (m *Matcher) MatchWord(word string) bool {
	if len(m.terms) > maxMaskTerms {
		for _, t := range m.terms {
			if t.Matches(word) {
				return true
			}
		}
		return false
	}
	return m.lookup(word) != 0
}

// lookup returns the mask of the keyword terms the word matches. Results
// are cached by surface form, up to maxMatcherCache words.
func (m *Matcher) lookup(word string) uint64 {
	if k, ok := m.cache.Load(word); ok {
		return k.(uint64)
	}
	norm := Fold(word)
	script := DetectScript(norm)
	var mask uint64
	// Russian Snowball only removes suffixes, so the stem of a Cyrillic
	// word is a prefix of it (checked by the tests), and so is every key
	// base of a word without a capital letter: skip the analysis when no
	// term can match.
	if script != ScriptCyrillic || len(m.terms) > maxPrefixTerms || capitalized(word) || m.anyPrefix(norm) {
		stem, keys := stemNorm(norm, script), NameKeys(word)
		for k, t := range m.terms {
			if t.caseAllows(word, norm) && t.matchesAnalysed(stem, keys) {
				mask |= 1 << k
			}
		}
	}
	if m.size.Load() < maxMatcherCache {
		m.size.Add(1)
		m.cache.Store(strings.Clone(word), mask)
	}
	return mask
}

// anyPrefix reports whether some term's stem or key base is a prefix of
// norm.
func (m *Matcher) anyPrefix(norm string) bool {
	for _, p := range m.prefixes {
		if strings.HasPrefix(norm, p) {
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
