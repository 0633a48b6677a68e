package textnorm

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
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
	// heads are the first two bytes of every prefix (nil when one is
	// shorter): a word starting otherwise starts with none of them.
	heads []uint16
	// noASCII: every stem, key and spelling of the terms has a byte beyond
	// ASCII, so a word all in ASCII (English, digits) matches none of them
	// (Term.Matches compares them for equality).
	noASCII bool
	cache   sync.Map // surface word (cloned) -> uint64 mask of the terms it matches
	size    atomic.Int32
}

// NewMatcher compiles keyword: its words are analysed (QueryTerms) exactly
// like the texts it will be matched against.
func NewMatcher(keyword string) *Matcher {
	m := &Matcher{terms: QueryTerms(keyword), noASCII: true}
	for _, t := range m.terms {
		m.prefixes = append(m.prefixes, t.Prefixes()...)
		for _, s := range append(append([]string{t.Stem}, t.Keys...), t.Norms...) {
			m.noASCII = m.noASCII && !isASCII(s)
		}
	}
	// A prefix that starts with another starts no word the other does
	// not: only the shortest are kept ("симон" for Симонов's ten).
	slices.SortFunc(m.prefixes, func(a, b string) int { return len(a) - len(b) })
	kept := m.prefixes[:0]
	for _, p := range m.prefixes {
		if !slices.ContainsFunc(kept, func(q string) bool { return strings.HasPrefix(p, q) }) {
			kept = append(kept, p)
		}
	}
	m.prefixes = kept
	for _, p := range m.prefixes {
		if len(p) < 2 {
			m.heads = nil
			break
		}
		if h := head(p); !slices.Contains(m.heads, h) {
			m.heads = append(m.heads, h)
		}
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
	quick := n <= maxPrefixTerms
	for i := 0; ; {
		start, next, r, ok := wordBegin(text, i)
		if !ok {
			return false
		}
		if r < utf8.RuneSelf && m.noASCII {
			// No term matches a word all in ASCII: skip every word before
			// the next byte beyond ASCII (an English paragraph at once),
			// resuming after the last byte before it that no word holds.
			j := indexNonASCII(text, start)
			if j == len(text) {
				return false
			}
			k := j
			for k > start && asciiClass[text[k-1]] != 0 {
				k--
			}
			if k > start {
				i = k
				continue
			}
		}
		// As in FirstMatch: a word of lower-case а–я only that no prefix
		// starts is set aside while the text is split (lookup's plainMiss).
		// And so is a word all in ASCII when no term has one (lookup's
		// noASCII).
		end := next
		plain := r >= 'а' && r <= 'я'
		ascii := r < utf8.RuneSelf && m.noASCII
		switch {
		case plain:
			end = plainEnd(text, end)
		case ascii:
			for end < len(text) && text[end] < utf8.RuneSelf && asciiClass[text[end]] == 1 {
				end++
			}
		}
		e := wordEnd(text, end)
		i = e
		if e == end && (ascii || plain && quick && !m.anyPrefix(text[start:e])) {
			continue
		}
		if found |= m.lookup(text[start:e]); found == want {
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

// FirstMatch returns the span of the first word of text that is a form of
// some word of the keyword (MatchWord), and false when there is none. It
// is MatchWord on each word in turn, except that the commonest words of a
// Russian text (lower-case а–я only) that no prefix starts are set aside
// while the text is split, without a lookup: finding the first match in a
// long paragraph costs little more than splitting it.
func (m *Matcher) FirstMatch(text string) (Span, bool) {
	quick := len(m.terms) <= maxPrefixTerms
	for i := 0; ; {
		start, next, r, ok := wordBegin(text, i)
		if !ok {
			return Span{}, false
		}
		end := next
		plain := r >= 'а' && r <= 'я'
		if plain {
			end = plainEnd(text, end)
		}
		e := wordEnd(text, end)
		w := text[start:e]
		if !(plain && e == end && quick && !m.anyPrefix(w)) && m.MatchWord(w) {
			return Span{Start: start, End: e}, true
		}
		i = e
	}
}

// indexNonASCII returns the index of the first byte of s at or after i
// beyond ASCII, or len(s): eight bytes at a time.
func indexNonASCII(s string, i int) int {
	for i+8 <= len(s) && le64(s[i:])&highs == 0 {
		i += 8
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i
		}
	}
	return len(s)
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// plainEnd returns the end of the run of а–я (plainPair) at byte i of
// text: 8 bytes (4 letters) at a time while text has them, then a letter at
// a time.
func plainEnd(text string, i int) int {
	for i+8 <= len(text) {
		k := plainRun(le64(text[i:]))
		i += 2 * k
		if k < 4 {
			return i
		}
	}
	for i+1 < len(text) && plainPair(text[i], text[i+1]) {
		i += 2
	}
	return i
}

// plainRun returns how many of the four byte pairs of w (8 bytes of a
// text, little-endian) encode one of а–я (plainPair) before the first
// that does not, 0 to 4. Each pair is a 16-bit lane: lead byte low, trail
// byte high. A pair is a letter of U+0400–U+047F when lead&^1 == D0 and
// trail&C0 == 80 (cyrillicRun); of those, а–п are D0 B0–BF and р–я D1
// 80–8F: bits 4–5 of the trail are 11 after D0 and 00 after D1, that is
// equal to 3 times (lead bit 0 xor 1).
func plainRun(w uint64) int {
	const lanes = 0x0001000100010001
	bad := (w&0xC0FEC0FEC0FEC0FE ^ 0x80D080D080D080D0) |
		(w>>12&(3*lanes) ^ (w&lanes^lanes)*3)
	return bits.TrailingZeros64(bad) / 16
}

// plainPair reports whether c, d encode one of а–я (not ё).
func plainPair(c, d byte) bool {
	return c == 0xD0 && d >= 0xB0 && d <= 0xBF || c == 0xD1 && d >= 0x80 && d <= 0x8F
}

// lookup returns the mask of the keyword terms the word matches. Results
// are cached by surface form, up to maxMatcherCache words.
func (m *Matcher) lookup(word string) uint64 {
	if m.plainMiss(word) || m.noASCII && isASCII(word) {
		return 0
	}
	if k, ok := m.cache.Load(word); ok {
		return k.(uint64)
	}
	mask := m.analyse(word)
	if m.size.Load() < maxMatcherCache {
		m.size.Add(1)
		m.cache.Store(strings.Clone(word), mask)
	}
	return mask
}

// analyse returns the mask of the keyword terms the word matches.
func (m *Matcher) analyse(word string) uint64 {
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
	return mask
}

// plainMiss reports, without the cache, that a word of the most common
// kind cannot match: lower-case Cyrillic letters а–я only (no ё, no
// capital, nothing else), which are their own folded form, and none of the
// prefixes starts it. lookup would find exactly that (see there).
func (m *Matcher) plainMiss(word string) bool {
	if len(m.terms) > maxPrefixTerms || len(word) == 0 || len(word)%2 != 0 {
		return false
	}
	for i := 0; i < len(word); i += 2 {
		if !plainPair(word[i], word[i+1]) {
			return false
		}
	}
	return !m.anyPrefix(word)
}

// anyPrefix reports whether some term's stem or key base is a prefix of
// norm.
func (m *Matcher) anyPrefix(norm string) bool {
	if m.heads != nil && (len(norm) < 2 || !slices.Contains(m.heads, head(norm))) {
		return false
	}
	for _, p := range m.prefixes {
		if strings.HasPrefix(norm, p) {
			return true
		}
	}
	return false
}

// head returns the first two bytes of s (len(s) >= 2).
func head(s string) uint16 { return uint16(s[0])<<8 | uint16(s[1]) }

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
