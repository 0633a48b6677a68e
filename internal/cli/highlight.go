package cli

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
// ** markers), from a little before the first matching word.
func highlight(text string, m *textnorm.Matcher, n int) string {
	var marks []span
	for _, sp := range textnorm.Spans(text) {
		if m.MatchWord(text[sp.Start:sp.End]) {
			marks = append(marks, span{sp.Start, sp.End})
		}
	}
	words := fields(text)
	if len(words) == 0 {
		return ""
	}
	first := 0
	if len(marks) > 0 {
		for first < len(words)-1 && words[first].end <= marks[0].start {
			first++
		}
	}
	// Keep up to a quarter of the room for the words before the match.
	for ctx := 0; first > 0; first-- {
		ctx += runes(text, words[first-1]) + 1
		if ctx > n/4 {
			break
		}
	}
	var b strings.Builder
	budget := n
	if first > 0 {
		b.WriteString("…")
		budget--
	}
	used := 0
	for i := first; i < len(words); i++ {
		sep, more := min(i-first, 1), 0
		if i+1 < len(words) {
			more = 1 // room for the closing …
		}
		l := runes(text, words[i])
		if used+sep+l+more > budget {
			if i == first { // one long word: cut it, without marks
				r := []rune(text[words[i].start:words[i].end])
				b.WriteString(string(r[:max(budget-1, 0)]))
			}
			b.WriteString("…")
			return b.String()
		}
		if sep > 0 {
			b.WriteByte(' ')
		}
		writeMarked(&b, text, words[i], marks)
		used += sep + l
	}
	return b.String()
}

// writeMarked writes text[w.start:w.end] with the marks inside it wrapped
// in ** **.
func writeMarked(b *strings.Builder, text string, w span, marks []span) {
	at := w.start
	for _, m := range marks {
		if m.start < w.start || m.end > w.end {
			continue
		}
		b.WriteString(text[at:m.start])
		b.WriteString("**" + text[m.start:m.end] + "**")
		at = m.end
	}
	b.WriteString(text[at:w.end])
}

// fields returns the spans of the runs of non-space characters of s.
func fields(s string) []span {
	var out []span
	start := -1
	for i, r := range s {
		switch {
		case unicode.IsSpace(r) && start >= 0:
			out = append(out, span{start, i})
			start = -1
		case !unicode.IsSpace(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, span{start, len(s)})
	}
	return out
}

func runes(s string, w span) int { return utf8.RuneCountInString(s[w.start:w.end]) }
