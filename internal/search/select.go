package search

import (
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// Helpers for callers that find items their own way (the codex's entry
// mentions, vector search) and present them as search results.

// Filter returns the test of opt's filters (kinds, headings, within) on
// d's items and the limit (DefaultLimit for 0), after the checks of a
// search: a bad limit or kind wraps ErrRange, a Within that is not a
// heading wraps ErrNotHeading.
func Filter(d *document.Document, opt Options) (keep func(*document.Item) bool, limit int, err error) {
	f, err := newFilter(d, opt)
	if err != nil {
		return nil, 0, err
	}
	return f.keep, f.limit, nil
}

// Snippet returns about 160 runes of text around the first span, with the
// spans inside wrapped in ** ** (the Snippet of a Result). spans must be
// sorted and must not overlap.
func Snippet(text string, spans []textnorm.Span) string { return snippet(text, spans) }

// NewResult makes a Result for an item.
func NewResult(it *document.Item, score float64, matches int, snippet string) Result {
	return result(it, score, matches, snippet)
}
