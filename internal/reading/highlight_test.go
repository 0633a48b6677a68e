package reading

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// highlightWhole is highlight as it was first written: it marks every
// word of the text and splits all of it into fields. highlight must give
// exactly its output while reading only up to the window it shows.
func highlightWhole(text string, m *textnorm.Matcher, n int) string {
	var marks []span
	for _, sp := range textnorm.Spans(text) {
		if m.MatchWord(text[sp.Start:sp.End]) {
			marks = append(marks, span{sp.Start, sp.End})
		}
	}
	var words []span
	start := -1
	for i, r := range text {
		switch {
		case unicode.IsSpace(r) && start >= 0:
			words = append(words, span{start, i})
			start = -1
		case !unicode.IsSpace(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		words = append(words, span{start, len(text)})
	}
	if len(words) == 0 {
		return ""
	}
	first := 0
	if len(marks) > 0 {
		for first < len(words)-1 && words[first].end <= marks[0].start {
			first++
		}
	}
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
			more = 1
		}
		l := runes(text, words[i])
		if used+sep+l+more > budget {
			if i == first {
				r := []rune(text[words[i].start:words[i].end])
				b.WriteString(string(r[:max(budget-1, 0)]))
			}
			b.WriteString("…")
			return b.String()
		}
		if sep > 0 {
			b.WriteByte(' ')
		}
		at := words[i].start
		for _, mk := range marks {
			if mk.start < words[i].start || mk.end > words[i].end {
				continue
			}
			b.WriteString(text[at:mk.start])
			b.WriteString("**" + text[mk.start:mk.end] + "**")
			at = mk.end
		}
		b.WriteString(text[at:words[i].end])
		used += sep + l
	}
	return b.String()
}

func TestHighlightWindowOnly(t *testing.T) {
	texts := []string{"", "   ", "слово", "  Симонов,  сказал\u00a0он\tСимонову. ", "don't 'quoted' Simonov’s",
		strings.Repeat("очень-длинное-слово", 20) + " Симонов", "a\xffb Симонов \xfe", "Симонов"}
	for _, src := range testbook.Books(t) {
		for _, it := range markdown.Parse(src).Items() {
			texts = append(texts, it.Text)
		}
	}
	for _, q := range []string{"Симонов", "человек", "the", "Darcy Elizabeth", "я", "xyzzy"} {
		m := textnorm.NewMatcher(q)
		for _, n := range []int{1, 4, 20, ExcerptRunes, 300} {
			for _, text := range texts {
				got, want := highlight(text, m, n), highlightWhole(text, m, n)
				if got != want {
					t.Fatalf("highlight(%q, %q, %d) = %q, want %q", text, q, n, got, want)
				}
				if n >= 20 && utf8.ValidString(text) && utf8.RuneCountInString(strings.ReplaceAll(got, "**", "")) > max(n, 1) {
					t.Fatalf("highlight(%q, %q, %d) = %q: more than %d runes", text, q, n, got, n)
				}
			}
		}
	}
}
