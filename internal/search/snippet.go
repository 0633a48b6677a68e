package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// Snippet sizes, in runes of the item's Text.
const (
	snippetRunes = 160 // the whole window
	snippetLead  = 40  // context before the first match
)

// scanChunk is how many bytes of an item termSpans tokenizes at a time.
const scanChunk = 1024

// termSpans returns the spans of the words of text that match (a query
// term), as far as a snippet needs them: the text is tokenized a chunk at a
// time and scanning stops a snippet's length after the first match, so a
// long item with an early match costs little.
func termSpans(text string, match func(word string) bool) []textnorm.Span {
	var out []textnorm.Span
	limit := len(text)
	for base := 0; base < limit; {
		end := cutAfterSpace(text, base+scanChunk)
		for _, sp := range textnorm.Spans(text[base:end]) {
			sp.Start, sp.End = base+sp.Start, base+sp.End
			if match(text[sp.Start:sp.End]) {
				if len(out) == 0 {
					limit = min(limit, sp.End+utf8.UTFMax*snippetRunes)
				}
				out = append(out, sp)
			}
		}
		base = end
	}
	return out
}

// cutAfterSpace returns the offset just after the first ASCII space or
// line break at or after i, or len(text). No word spans such a cut, so
// tokenizing the text piece by piece gives the same words.
func cutAfterSpace(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if j := strings.IndexAny(text[i:], " \n"); j >= 0 {
		return i + j + 1
	}
	return len(text)
}

// snippet returns about snippetRunes runes of text around the first span,
// white space collapsed, with every span inside the window wrapped in
// ** ** and … where the text was cut. spans are sorted and do not overlap.
// The result is valid UTF-8 (invalid bytes of text become U+FFFD).
func snippet(text string, spans []textnorm.Span) string {
	start, end := window(text, spans)
	var b strings.Builder
	b.Grow(end - start + 16)
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for _, sp := range spans {
		if sp.Start < start || sp.End > end {
			break
		}
		writeCollapsed(&b, text[pos:sp.Start])
		b.WriteString("**")
		writeCollapsed(&b, text[sp.Start:sp.End])
		b.WriteString("**")
		pos = sp.End
	}
	writeCollapsed(&b, text[pos:end])
	if end < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// window chooses the byte range of the snippet: it starts up to
// snippetLead runes before the first span (earlier when the text ends
// soon after), holds the whole first span, and is cut at white space
// where possible, never inside a rune or a later span.
func window(text string, spans []textnorm.Span) (int, int) {
	first := textnorm.Span{}
	if len(spans) > 0 {
		first = spans[0]
	}
	start := back(text, first.Start, snippetLead)
	end := forward(text, start, snippetRunes)
	if end == len(text) {
		start = min(start, back(text, end, snippetRunes))
	}
	end = max(end, first.End)
	start = snapStart(text, start, first.Start)
	end = snapEnd(text, end, first.End)
	for _, sp := range spans {
		if sp.Start < end && sp.End > end {
			end = trimRightSpace(text, sp.Start, first.End)
		}
	}
	return start, end
}

// back moves i back by up to n runes.
func back(text string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(text[:i])
		i -= size
	}
	return i
}

// forward moves i on by up to n runes.
func forward(text string, i, n int) int {
	for ; n > 0 && i < len(text); n-- {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return i
}

// snapStart moves a window start that cuts a word to the next word, if one
// starts by limit, and past any white space.
func snapStart(text string, start, limit int) int {
	if start > 0 && !spaceBefore(text, start) {
		if i := strings.IndexFunc(text[start:limit], unicode.IsSpace); i >= 0 {
			start += i
		}
	}
	for start < limit {
		r, size := utf8.DecodeRuneInString(text[start:])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	return start
}

// snapEnd moves a window end that cuts a word back to the end of the
// previous word, if that is at or after limit, and before any white space.
func snapEnd(text string, end, limit int) int {
	if end < len(text) && !spaceAt(text, end) {
		if i := strings.LastIndexFunc(text[limit:end], unicode.IsSpace); i >= 0 {
			end = limit + i
		}
	}
	return trimRightSpace(text, end, limit)
}

// trimRightSpace moves end back over white space, not below limit.
func trimRightSpace(text string, end, limit int) int {
	for end > limit {
		r, size := utf8.DecodeLastRuneInString(text[:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	return end
}

func spaceBefore(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsSpace(r)
}

func spaceAt(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(r)
}

// writeCollapsed writes s with every run of white space as one space and
// invalid UTF-8 bytes as U+FFFD.
func writeCollapsed(b *strings.Builder, s string) {
	space := false
	for _, r := range s { // invalid bytes range as utf8.RuneError
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
}
