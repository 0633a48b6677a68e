package search

import (
	"container/heap"
	"math"
	"slices"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Ranked runs BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5)/(n + 0.5))
// over the Text of the items, with the query analysed by textnorm.QueryTerms
// (a word repeated in the query counts once; every form of a word counts as
// the word, see forms.go). Results come best first, ties
// in document order; an item needs at least one query term. The corpus
// statistics (N, document frequencies, mean length) are those of the whole
// book: the options only choose which items are returned. A query without
// words gives an error wrapping ErrEmptyQuery. A stale index is brought up
// to date first.
func (x *Index) Ranked(d *document.Document, query string, opt Options) ([]Result, error) {
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
	hits := x.bm25(d, terms, &f)
	m := textnorm.NewMatcher(query)
	out := make([]Result, len(hits))
	for i, h := range hits {
		out[i] = result(h.it, h.score, h.matches, snippet(h.it.Text, termSpans(h.it.Text, m.MatchWord)))
	}
	return out, nil
}

// distinct returns the stems without repeats, in first-occurrence order.
func distinct(stems []string) []string {
	out := stems[:0:0]
	for _, s := range stems {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// scoreList is a query term's postings with a cursor and its idf.
type scoreList struct {
	list []posting
	pos  int
	idf  float64
}

// bm25 scores every item holding a query term by merging the postings in
// item order, keeping the best f.limit that pass the filter.
func (x *Index) bm25(d *document.Document, terms []textnorm.Term, f *filter) []hit {
	n := float64(x.nItems)
	var lists []*scoreList
	for _, t := range terms {
		if g := x.group(t); len(g) > 0 {
			df := float64(len(g))
			lists = append(lists, &scoreList{list: g, idf: math.Log(1 + (n-df+0.5)/(df+0.5))})
		}
	}
	top := &topK{bestHits: bestHits{k: f.limit}, d: d, f: f}
	avgdl := x.avgdl()
	for {
		id, ok := nextItem(lists)
		if !ok {
			break
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(x.dlOf(id))/avgdl)
		score, matches := 0.0, 0
		for _, l := range lists {
			if l.pos < len(l.list) && l.list[l.pos].item == id {
				tf := float64(l.list[l.pos].tf)
				score += l.idf * tf * (bm25K1 + 1) / (tf + norm)
				matches += int(l.list[l.pos].tf)
				l.pos++
			}
		}
		top.offer(int(id), score, matches)
	}
	return top.sorted()
}

// nextItem returns the smallest item ID at the cursors of lists.
func nextItem(lists []*scoreList) (int32, bool) {
	id, ok := int32(math.MaxInt32), false
	for _, l := range lists {
		if l.pos < len(l.list) && l.list[l.pos].item <= id {
			id, ok = l.list[l.pos].item, true
		}
	}
	return id, ok
}

// hit is a scored item.
type hit struct {
	it      *document.Item
	score   float64
	matches int
}

// worse orders hits: lower score, then later in the document.
func worse(a, b hit) bool {
	return a.score < b.score || a.score == b.score && a.it.Index() > b.it.Index()
}

// bestHits keeps the best k hits (of the keyword ranking and the search
// by meaning); h is a heap whose root is the worst hit kept.
type bestHits struct {
	k int
	h []hit
}

func (t *bestHits) Len() int           { return len(t.h) }
func (t *bestHits) Less(i, j int) bool { return worse(t.h[i], t.h[j]) }
func (t *bestHits) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *bestHits) Push(v any)         { t.h = append(t.h, v.(hit)) }
func (t *bestHits) Pop() any {
	v := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return v
}

// add keeps c if it is among the best k so far.
func (t *bestHits) add(c hit) {
	switch {
	case len(t.h) < t.k:
		heap.Push(t, c)
	case worse(t.h[0], c):
		t.h[0] = c
		heap.Fix(t, 0)
	}
}

// topK keeps the best k hits that pass a filter.
type topK struct {
	bestHits
	d *document.Document
	f *filter
}

// offer considers an item; the item is looked up only if its score can
// enter the heap.
func (t *topK) offer(id int, score float64, matches int) {
	if len(t.h) == t.k && score < t.h[0].score {
		return
	}
	it := t.d.ByID(id)
	if it == nil || !t.f.keep(it) {
		return
	}
	t.add(hit{it, score, matches})
}

// sorted returns the hits best first.
func (t *bestHits) sorted() []hit {
	slices.SortFunc(t.h, func(a, b hit) int {
		if worse(b, a) {
			return -1
		}
		if worse(a, b) {
			return 1
		}
		return 0
	})
	return t.h
}
