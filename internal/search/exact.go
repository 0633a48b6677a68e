package search

import (
	"fmt"
	"slices"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// Exact finds the items whose Text contains the normalised phrase
// (textnorm.MatchPhrase: the phrase's words as consecutive words, ignoring
// case, ё/е and the punctuation and white space between them), in document
// order, at most the options' limit. Score and Matches are the number of
// occurrences in the item. The index pre-filters the candidates (they must
// hold every stem of the phrase) and MatchPhrase verifies each. A phrase
// without words gives an error wrapping ErrEmptyQuery. A stale index is
// brought up to date first.
func (x *Index) Exact(d *document.Document, phrase string, opt Options) ([]Result, error) {
	f, err := newFilter(d, opt)
	if err != nil {
		return nil, err
	}
	stems := distinct(textnorm.Terms(phrase))
	if len(stems) == 0 {
		return nil, errEmpty("phrase", phrase)
	}
	x.rlockFresh(d)
	defer x.mu.RUnlock()
	out := []Result{}
	for _, it := range x.candidates(d, stems, &f) {
		spans := textnorm.MatchPhrase(it.Text, phrase)
		if len(spans) == 0 {
			continue
		}
		out = append(out, result(it, float64(len(spans)), len(spans), snippet(it.Text, spans)))
		if len(out) == f.limit {
			break
		}
	}
	return out, nil
}

// candidates returns the items that hold every stem and pass the filter,
// in document order.
func (x *Index) candidates(d *document.Document, stems []string, f *filter) []*document.Item {
	var items []*document.Item
	for _, id := range x.withAll(stemTerms(stems)) {
		if it := d.ByID(id); it != nil && f.keep(it) {
			items = append(items, it)
		}
	}
	slices.SortFunc(items, func(a, b *document.Item) int { return a.Index() - b.Index() })
	return items
}

// errEmpty is the error for a query without words.
func errEmpty(what, q string) error {
	return fmt.Errorf("%w: the %s %q has no words to search for", ErrEmptyQuery, what, q)
}
