package search

import (
	"slices"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// All finds the items whose Text holds every word of the query, in any
// order and any form (textnorm.QueryTerms: the same stem or a shared name
// paradigm, as a keyword cursor compares them), in document order, at most
// the options' limit. Score and Matches are the number of matching words of
// the item as far as the snippet reads; the snippet marks them. A query
// without words gives an error wrapping ErrEmptyQuery. A stale index is
// brought up to date first.
func (x *Index) All(d *document.Document, query string, opt Options) ([]Result, error) {
	f, err := newFilter(d, opt)
	if err != nil {
		return nil, err
	}
	terms := textnorm.QueryTerms(query)
	if len(terms) == 0 {
		return nil, errEmpty("query", query)
	}
	x.rlockFresh(d)
	defer x.mu.RUnlock()
	var items []*document.Item
	for _, id := range x.withAll(terms) {
		if it := d.ByID(id); it != nil && f.keep(it) {
			items = append(items, it)
		}
	}
	slices.SortFunc(items, func(a, b *document.Item) int { return a.Index() - b.Index() })
	m := textnorm.NewMatcher(query)
	out := []Result{}
	for _, it := range items {
		spans := termSpans(it.Text, m.MatchWord)
		out = append(out, result(it, float64(len(spans)), len(spans), snippet(it.Text, spans)))
		if len(out) == f.limit {
			break
		}
	}
	return out, nil
}
