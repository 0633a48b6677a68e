package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	cyrIE         = 'е' // U+0435, the target of ё folding
	cyrIO         = 'ё' // U+0451
	cyrCapIO      = 'Ё' // U+0401
	rightQuote    = '\u2019'
	combDiaeresis = '\u0308'
)

// Fold returns s folded for case-insensitive matching.
//
// Each rune r is replaced by unicode.ToLower(unicode.ToUpper(r)). This is
// Unicode simple case folding up to the choice of representative: two
// runes in the same unicode.SimpleFold orbit always fold to the same
// rune, and folding is idempotent (both are checked over the whole code
// space by the tests). It maps final sigma ς to σ, long s ſ to s and the
// Kelvin sign to k; it does not apply the multi-rune "full" foldings
// (ß stays ß). In addition:
//
//   - ё and Ё become е, also when ё is written decomposed as е + U+0308;
//   - the right single quotation mark ’ (U+2019), the usual typographic
//     apostrophe, becomes the ASCII apostrophe '.
//
// No other Unicode normalisation is done. Invalid UTF-8 bytes are copied
// unchanged. If s is already folded it is returned without allocating.
func Fold(s string) string {
	i := firstUnfolded(s)
	if i < 0 {
		return s
	}
	buf := make([]byte, 0, len(s))
	buf = append(buf, s[:i]...)
	return string(appendFold(buf, s[i:], prevRune(s[:i])))
}

// foldRune folds one rune; see Fold.
func foldRune(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	case r >= 'а' && r <= 'я': // basic lowercase Cyrillic: already folded
		return r
	case r >= 'А' && r <= 'Я':
		return r + 'а' - 'А'
	case r == cyrIO || r == cyrCapIO:
		return cyrIE
	case r == rightQuote:
		return '\''
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// dropRune reports whether r is a combining diaeresis that, following a
// folded е, spells a decomposed ё and must be dropped.
func dropRune(prev, r rune) bool {
	return r == combDiaeresis && prev == cyrIE
}

// firstUnfolded returns the byte index of the first rune of s that Fold
// would change, or -1 if s is already folded.
func firstUnfolded(s string) int {
	var prev rune
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				return i
			}
			prev = rune(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size > 1 && (foldRune(r) != r || dropRune(prev, r)) {
			return i
		}
		prev = r
		i += size
	}
	return -1
}

// prevRune returns the last rune of an already folded prefix.
func prevRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// appendFold appends the folding of s to dst; prev is the folded rune
// that precedes s (0 if none).
func appendFold(dst []byte, s string, prev rune) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			prev = rune(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if size == 1 { // invalid byte: copy unchanged
			dst = append(dst, s[i-1])
			prev = utf8.RuneError
			continue
		}
		if dropRune(prev, r) {
			continue
		}
		prev = foldRune(r)
		dst = utf8.AppendRune(dst, prev)
	}
	return dst
}

// NormalizeSpace folds s (see Fold), collapses every run of Unicode
// white space to a single ASCII space and trims leading and trailing
// white space. It is meant for exact phrase comparison.
func NormalizeSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var prev rune
	pendingSpace := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		raw := s[i : i+size]
		i += size
		if size == 1 && r == utf8.RuneError {
			flushSpace(&b, &pendingSpace)
			b.WriteString(raw)
			prev = r
			continue
		}
		if unicode.IsSpace(r) {
			pendingSpace = b.Len() > 0
			prev = ' '
			continue
		}
		if dropRune(prev, r) {
			continue
		}
		flushSpace(&b, &pendingSpace)
		prev = foldRune(r)
		b.WriteRune(prev)
	}
	return b.String()
}

// flushSpace writes the pending collapsed space, if any.
func flushSpace(b *strings.Builder, pending *bool) {
	if *pending {
		b.WriteByte(' ')
		*pending = false
	}
}
