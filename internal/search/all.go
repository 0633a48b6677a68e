package search

import (
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// All finds the items whose Text holds every word of the query, in any
// order and any form (compared by stem, as a keyword cursor compares them),
// in document order, at most the options' limit. Score and Matches are the
// number of words of the item whose stem is a query term; the snippet marks
// them. A query without words gives an error wrapping ErrEmptyQuery. A
// stale index is brought up to date first.
func (x *Index) All(d *document.Document, query string, opt Options) ([]Result, error) {
	f, err := newFilter(d, opt)
	if err != nil {
		return nil, err
	}
	stems := distinct(textnorm.Terms(query))
	if len(stems) == 0 {
		return nil, errEmpty("query", query)
	}
	x.rlockFresh(d)
	defer x.mu.RUnlock()
	terms := x.termSet(stems)
	out := []Result{}
	for _, it := range x.candidates(d, stems, &f) {
		spans := x.termSpans(it.Text, terms)
		out = append(out, result(it, float64(len(spans)), len(spans), snippet(it.Text, spans)))
		if len(out) == f.limit {
			break
		}
	}
	return out, nil
}
