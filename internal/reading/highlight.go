package reading

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// Highlight is Excerpt with the words that are forms of the query's words
// (m.MatchWord: the same stem or a shared name-paradigm key) wrapped in
// ** ** (the markers do not count towards n). The excerpt starts a little
// before the first such word, with … when text was cut before it.
func Highlight(kind document.Kind, level int, text string, m *textnorm.Matcher, n int) string {
	prefix := ""
	if kind == document.Heading {
		prefix = strings.Repeat("#", level) + " "
	}
	if kind == document.Table {
		text = strings.ReplaceAll(text, "\n", " / ") // one row after another
	}
	return prefix + highlight(text, m, n-utf8.RuneCountInString(prefix))
}

// span is a byte range [start, end) of a text.
type span struct{ start, end int }

// highlight shows text on one line in at most n runes (not counting the
// ** markers), from a little before the first matching word. Its cost is
// that of reaching the first match and of the window shown, not of the
// whole text: a long paragraph with an early match costs little.
func highlight(text string, m *textnorm.Matcher, n int) string {
	first, ok := firstField(text, m)
	if !ok {
		return ""
	}
	// Keep up to a quarter of the room for the words before the match.
	for ctx := 0; ; {
		prev, ok := fieldBefore(text, first.start)
		if !ok {
			break
		}
		ctx += runes(text, prev) + 1
		if ctx > n/4 {
			break
		}
		first = prev
	}
	var b strings.Builder
	budget := n
	if _, ok := fieldBefore(text, first.start); ok {
		b.WriteString("…")
		budget--
	}
	used := 0
	for w, i := first, 0; ; i++ {
		next, more := fieldAfter(text, w.end)
		sep, room := min(i, 1), 0
		if more {
			room = 1 // for the closing …
		}
		l := runes(text, w)
		if used+sep+l+room > budget {
			if i == 0 { // one long word: cut it, without marks
				r := []rune(text[w.start:w.end])
				b.WriteString(string(r[:max(budget-1, 0)]))
			}
			b.WriteString("…")
			return b.String()
		}
		if sep > 0 {
			b.WriteByte(' ')
		}
		writeMarked(&b, text, w, m)
		used += sep + l
		if !more {
			return b.String()
		}
		w = next
	}
}

// firstField returns the run of non-space characters (a field) that holds
// the first word matching m, or the first field when no word matches; ok
// is false when text has no field at all.
func firstField(text string, m *textnorm.Matcher) (span, bool) {
	if sp, ok := m.FirstMatch(text); ok {
		return fieldAt(text, sp.Start), true
	}
	return fieldAfter(text, 0)
}

// fieldAt returns the field holding the non-space character at i.
func fieldAt(text string, i int) span {
	start := i
	for start > 0 {
		space, size := spaceBefore(text, start)
		if space {
			break
		}
		start -= size
	}
	end := i
	for end < len(text) {
		space, size := spaceAt(text, end)
		if space {
			break
		}
		end += size
	}
	return span{start, end}
}

// fieldAfter returns the first field at or after byte i.
func fieldAfter(text string, i int) (span, bool) {
	for i < len(text) {
		space, size := spaceAt(text, i)
		if !space {
			return fieldAt(text, i), true
		}
		i += size
	}
	return span{}, false
}

// fieldBefore returns the last field that ends before byte i.
func fieldBefore(text string, i int) (span, bool) {
	for i > 0 {
		space, size := spaceBefore(text, i)
		if !space {
			return fieldAt(text, i-size), true
		}
		i -= size
	}
	return span{}, false
}

// spaceAt reports whether the rune at byte i is white space
// (unicode.IsSpace) and its size; ASCII and two-byte Cyrillic are told
// from their bytes.
func spaceAt(text string, i int) (bool, int) {
	switch c := text[i]; {
	case c < utf8.RuneSelf:
		return asciiSpace[c], 1
	case (c == 0xD0 || c == 0xD1) && i+1 < len(text) && text[i+1]&0xC0 == 0x80:
		return false, 2 // U+0400–U+047F: letters
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(r), size
}

// spaceBefore is spaceAt for the rune that ends at byte i.
func spaceBefore(text string, i int) (bool, int) {
	switch c := text[i-1]; {
	case c < utf8.RuneSelf:
		return asciiSpace[c], 1
	case i >= 2 && (text[i-2] == 0xD0 || text[i-2] == 0xD1) && c&0xC0 == 0x80:
		return false, 2
	}
	r, size := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsSpace(r), size
}

// asciiSpace marks the ASCII white space of unicode.IsSpace.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// writeMarked writes the field text[w.start:w.end] with its words that
// match m wrapped in ** **. A word never spans white space, so the words
// of a field are those of the field alone.
func writeMarked(b *strings.Builder, text string, w span, m *textnorm.Matcher) {
	field := text[w.start:w.end]
	at := 0
	for i := 0; ; {
		start, end, ok := textnorm.NextWord(field, i)
		if !ok {
			break
		}
		if m.MatchWord(field[start:end]) {
			b.WriteString(field[at:start])
			b.WriteString("**" + field[start:end] + "**")
			at = end
		}
		i = end
	}
	b.WriteString(field[at:])
}

func runes(s string, w span) int { return utf8.RuneCountInString(s[w.start:w.end]) }
