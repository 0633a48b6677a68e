package search

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// TestTermSpansChunked checks that tokenizing an item a chunk at a time
// finds the same words and gives the same snippet as tokenizing it whole.
func TestTermSpansChunked(t *testing.T) {
	srcs := map[string][]byte{"example": example(t)}
	long := strings.Repeat("Don't stop: «ещё раз», Звёздочкин'а… \n", 400) + "часы"
	srcs["long"] = []byte(long)
	if books, ok := booksIfAny(t); ok {
		for name, src := range books {
			srcs[name] = src
		}
	}
	for name, src := range srcs {
		d := markdown.Parse(src)
		for _, q := range []string{"часы", "ещё Звёздочкин", "don't", "человек", "Elizabeth Darcy", "the", "Симонова Лев"} {
			m := textnorm.NewMatcher(q)
			for _, it := range d.Items() {
				var all []textnorm.Span
				for _, sp := range textnorm.Spans(it.Text) {
					if m.MatchWord(it.Text[sp.Start:sp.End]) {
						all = append(all, sp)
					}
				}
				got := termSpans(it.Text, m.MatchWord)
				require.Equal(t, all[:len(got)], got, "%s %q %s", name, q, it.Pointer())
				require.Equal(t, snippet(it.Text, all), snippet(it.Text, got), "%s %q %s", name, q, it.Pointer())
			}
		}
	}
}

// booksIfAny returns the real books, or false when they are absent.
func booksIfAny(t *testing.T) (books map[string][]byte, ok bool) {
	t.Run("books", func(t *testing.T) { books = testbook.Books(t) })
	return books, books != nil
}
