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
	for i := 0; ; {
		start, end, ok := textnorm.NextWord(text, i)
		if !ok {
			break
		}
		if m.MatchWord(text[start:end]) {
			return fieldAt(text, start), true
		}
		i = end
	}
	return fieldAfter(text, 0)
}

// fieldAt returns the field holding the non-space character at i.
func fieldAt(text string, i int) span {
	start := i
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:start])
		if unicode.IsSpace(r) {
			break
		}
		start -= size
	}
	end := i
	for end < len(text) {
		r, size := utf8.DecodeRuneInString(text[end:])
		if unicode.IsSpace(r) {
			break
		}
		end += size
	}
	return span{start, end}
}

// fieldAfter returns the first field at or after byte i.
func fieldAfter(text string, i int) (span, bool) {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			return fieldAt(text, i), true
		}
		i += size
	}
	return span{}, false
}

// fieldBefore returns the last field that ends before byte i.
func fieldBefore(text string, i int) (span, bool) {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.IsSpace(r) {
			return fieldAt(text, i-size), true
		}
		i -= size
	}
	return span{}, false
}

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
