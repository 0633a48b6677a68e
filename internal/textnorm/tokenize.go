package textnorm

import (
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// Token is one word of a text.
type Token struct {
	Text   string // surface form, exactly Text == s[Start:End]
	Norm   string // Fold(Text)
	Stem   string // stem of Norm; equal to Norm unless Script is Cyrillic or Latin
	Script Script // script of the word's letters
	Start  int    // byte offset of the word in s
	End    int    // byte offset just past the word in s
}

// Span is a half-open byte range [Start, End) of a text.
type Span struct {
	Start, End int
}

// asciiClass classifies ASCII bytes: 1 word character, 2 apostrophe.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = 1
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = 1, 1
	}
	t['\''] = 2
	return t
}()

// isWordRune reports whether r is a word character.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiClass[r] == 1
	}
	if (r >= 'А' && r <= 'я') || r == cyrIO || r == cyrCapIO {
		return true
	}
	if r >= 0x2000 && r <= 0x206F { // General Punctuation: — … “ ” etc.
		return false
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// isLetterish reports whether r is a letter or a combining mark.
func isLetterish(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiClass[r] == 1 && r > '9'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r)
}

// decode decodes the rune at s[i:]; invalid bytes decode to
// utf8.RuneError (a non-word rune) of size 1. ASCII and two-byte
// sequences (which include Cyrillic) are decoded inline.
func decode(s string, i int) (rune, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	if c >= 0xC2 && c < 0xE0 && i+1 < len(s) {
		if n := s[i+1]; n&0xC0 == 0x80 {
			return rune(c&0x1F)<<6 | rune(n&0x3F), 2
		}
	}
	return utf8.DecodeRuneInString(s[i:])
}

// estimateWords guesses the number of words in s, to size slices.
func estimateWords(s string) int {
	return len(s)/8 + 1
}

// NextWord returns the byte span of the first word (as defined by
// Tokenize) of s at or after byte i; ok is false if there is none. It is
// Spans a word at a time, without the slice: starting with i = 0 and
// going on from each word's end visits the words of s in order. i must
// be 0 or the end of a word.
func NextWord(s string, i int) (start, end int, ok bool) {
	return nextWord(s, i)
}

// nextWord returns the byte span of the first word of s at or after
// byte i; ok is false if there is none. ASCII and two-byte Cyrillic are
// classified from their bytes; other runes are decoded.
func nextWord(s string, i int) (start, end int, ok bool) {
	for i < len(s) { // wordBegin, inline for the common cases
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiClass[c] == 1 {
				return i, wordEnd(s, i+1), true
			}
			i++
			continue
		}
		if (c == 0xD0 || c == 0xD1) && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			return i, wordEnd(s, i+2), true
		}
		start, next, _, ok := wordBegin(s, i)
		if !ok {
			break
		}
		return start, wordEnd(s, next), true
	}
	return len(s), len(s), false
}

// wordBegin finds the first word of s at or after byte i: where it starts,
// where its first rune r ends, and whether there is one.
func wordBegin(s string, i int) (start, next int, r rune, ok bool) {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiClass[c] == 1 {
				return i, i + 1, rune(c), true
			}
			i++
			continue
		}
		if r, ok := cyrillic2(s, i); ok {
			return i, i + 2, r, true
		}
		r, size := decode(s, i)
		if isWordRune(r) {
			return i, i + size, r, true
		}
		i += size
	}
	return len(s), len(s), 0, false
}

// cyrillic2 decodes a two-byte sequence of U+0400–U+047F (lead byte D0 or
// D1): every rune there is a letter, so a word rune.
func cyrillic2(s string, i int) (rune, bool) {
	if c := s[i]; (c == 0xD0 || c == 0xD1) && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
		return rune(c&0x1F)<<6 | rune(s[i+1]&0x3F), true
	}
	return 0, false
}

// SWAR constants: a byte of ones, and each byte's high bit.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// le64 returns the 8 bytes of b (at least 8) as a little-endian word: one
// load.
func le64(b string) uint64 {
	b = b[:8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// cyrillicRun returns how many two-byte sequences of U+0400–U+047F (lead
// byte D0 or D1, then a continuation byte: letters) the first 8 bytes of
// b (at least 8) begin with, 0 to 4, testing the 8 bytes at once.
func cyrillicRun(b string) int {
	return bits.TrailingZeros64(le64(b)&0xC0FEC0FEC0FEC0FE^0x80D080D080D080D0) / 16
}

// wordEnd returns the end of the word whose first rune ends at i. Runs of
// ASCII letters and digits and of two-byte Cyrillic letters are skipped 8
// bytes at a time where s has them, else byte by byte; an apostrophe looks
// back at the rune before it.
func wordEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch asciiClass[c] {
			case 1:
				if i+8 <= len(s) {
					// How many of the 8 bytes at i are ASCII letters or
					// digits before the first that is not (at least this
					// one), all tested at once: with the high bits cleared
					// (so no byte carries into the next), adding 0x80-lo
					// sets a byte's high bit iff it is ≥ lo.
					x := le64(s[i:])
					y := x &^ highs
					t := y | 0x20*ones // letters to lower case
					letter := (t + (0x80-'a')*ones) &^ (t + (0x80-'z'-1)*ones)
					digit := (y + (0x80-'0')*ones) &^ (y + (0x80-'9'-1)*ones)
					i += int(uint(bits.TrailingZeros64(^((letter|digit)&^x)&highs)) / 8)
					continue
				}
				i++
				continue
			case 0:
				return i
			} // an apostrophe: below
		} else if c == 0xD0 || c == 0xD1 { // U+0400–U+047F: letters
			if i+8 <= len(s) {
				if k := cyrillicRun(s[i:]); k > 0 {
					i += 2 * k
					continue
				}
			}
			if i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
				i += 2
				continue
			}
		}
		r, size := decode(s, i)
		if r == '\'' || r == rightQuote {
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			if !isLetterish(prev) || i+size >= len(s) {
				return i
			}
			next, _ := decode(s, i+size)
			if !unicode.IsLetter(next) {
				return i
			}
		} else if !isWordRune(r) {
			return i
		}
		i += size
	}
	return i
}

// Tokenize splits s into words and folds and stems each of them.
// Offsets refer to s; s is never modified.
//
// A word is a maximal run of letters (L*), numbers (N*) and combining
// marks (M*). An apostrophe, ASCII ' or typographic ’ (U+2019), is part
// of a word only when it stands between a letter (or mark) and a
// letter, so "don't" and "д'Артаньян" are single words while 'quoted'
// words lose their quotes. Everything else is a boundary: white space,
// punctuation including hyphens and dashes ("кто-то" is two words),
// quotes «» „“ "", symbols and invalid UTF-8 bytes.
//
// The Norm and Stem strings may share memory with s.
func Tokenize(s string) []Token {
	toks := make([]Token, 0, estimateWords(s))
	var st stemmer
	for i := 0; ; {
		start, end, ok := nextWord(s, i)
		if !ok {
			return toks
		}
		text := s[start:end]
		w := st.word(text)
		toks = append(toks, Token{
			Text: text, Norm: w.norm, Stem: w.stem,
			Script: w.script, Start: start, End: end,
		})
		i = end
	}
}

// Terms returns the stems of the words of s, in order. Index and query
// both use it, so a query term matches a text term iff they are equal.
// The returned strings may share memory with s; clone them to keep
// them longer than s.
func Terms(s string) []string {
	terms := make([]string, 0, estimateWords(s))
	var st stemmer
	for i := 0; ; {
		start, end, ok := nextWord(s, i)
		if !ok {
			return terms
		}
		terms = append(terms, st.word(s[start:end]).stem)
		i = end
	}
}

// Spans returns the byte spans of the words of s (as defined by
// Tokenize), in order, without folding or stemming them.
func Spans(s string) []Span {
	spans := make([]Span, 0, estimateWords(s))
	for i := 0; ; {
		start, end, ok := nextWord(s, i)
		if !ok {
			return spans
		}
		spans = append(spans, Span{start, end})
		i = end
	}
}
