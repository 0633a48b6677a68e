package reading

import (
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// FindMode is how `aite find` matches its words.
type FindMode string

// Find modes.
const (
	// FindKeyword lists every item holding all the words (compared by
	// stem), in document order, through a keyword cursor.
	FindKeyword FindMode = "keyword"
	// FindExact lists the items holding the normalised phrase, in document
	// order.
	FindExact FindMode = "exact"
	// FindRanked lists the items holding any of the words, best BM25 score
	// first.
	FindRanked FindMode = "ranked"
	// FindEntry lists the items naming a codex entry by any of its names,
	// in document order.
	FindEntry FindMode = "entry"
	// FindSemantic ranks the items by meaning (embeddings), best first.
	FindSemantic FindMode = "semantic"
	// FindHybrid fuses the ranking by words (BM25) and by meaning.
	FindHybrid FindMode = "hybrid"
)

// FindRequest describes one search of a book.
type FindRequest struct {
	Words    []string
	Mode     FindMode
	Entry    string // FindEntry: the entry's ID, name or alias
	Headings bool   // include headings
	Kinds    []document.Kind
	Within   string // a heading pointer: search its section only
	// Limit caps the results; 0 lists every keyword match and
	// search.DefaultLimit exact or ranked ones.
	Limit int
}

// Query is the words as one query string.
func (r FindRequest) Query() string { return strings.Join(r.Words, " ") }

// CheckSearchLimit validates the --limit of find.
func CheckSearchLimit(n int) error {
	if n < 1 || n > search.MaxLimit {
		return Usagef("--limit must be between 1 and %d (got %d)", search.MaxLimit, n)
	}
	return nil
}

// Found is the JSON shape of a find.
type Found struct {
	Mode  FindMode    `json:"mode"`
	Query string      `json:"query"`
	Entry *FoundEntry `json:"entry,omitempty"`
	// RankedBy is how a search by meaning ranked in the end: semantic,
	// hybrid, or ranked (by words) when it fell back; Notice says why.
	RankedBy string    `json:"rankedBy,omitempty"`
	Notice   string    `json:"notice,omitempty"`
	Results  []FindHit `json:"results"`
	// LimitReached is set when the limit may have cut the list.
	LimitReached bool `json:"limitReached"`
	limit        int
}

// FoundEntry is the entry an entry search looked for.
type FoundEntry struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
}

// FindHit is the JSON shape of one result: a snippet with ** ** around
// the matches for exact and ranked searches (and the BM25 score for
// ranked), the item's plain text for the keyword mode.
type FindHit struct {
	Pointer pointer.Pointer `json:"pointer"`
	ID      int             `json:"id"`
	Label   string          `json:"label"`
	Kind    document.Kind   `json:"kind"`
	Index   int             `json:"index"`
	Score   float64         `json:"score,omitempty"`
	Snippet string          `json:"snippet,omitempty"`
	Text    string          `json:"text,omitempty"`
	excerpt string          // what the text output shows
}

// Find searches the book. Pointer errors (of Within) carry the nearest
// items.
func (b *Book) Find(req FindRequest) (Found, error) {
	out := Found{Mode: req.Mode, Query: req.Query(), limit: req.Limit}
	var err error
	switch req.Mode {
	case FindKeyword, "":
		out.Mode = FindKeyword
		out.Results, out.LimitReached, err = b.findKeyword(req)
	case FindEntry:
		out.Query = req.Entry
		out.Entry, out.Results, out.LimitReached, err = b.findEntry(req)
	case FindExact, FindRanked:
		out.Results, err = b.search(req)
		if out.limit == 0 {
			out.limit = search.DefaultLimit
		}
		out.LimitReached = len(out.Results) == out.limit
	default:
		err = fmt.Errorf("unknown find mode %q", req.Mode)
	}
	if err != nil {
		return Found{}, b.WithNearest(err)
	}
	if out.Results == nil {
		out.Results = []FindHit{}
	}
	return out, nil
}

// findKeyword walks a keyword cursor over the words to its end.
func (b *Book) findKeyword(req FindRequest) ([]FindHit, bool, error) {
	info, err := b.r.CreateCursor(cursor.Spec{Type: cursor.Keyword, Keywords: []string{req.Query()},
		IncludeHeadings: req.Headings, Kinds: req.Kinds, Within: req.Within, MaxElements: cursor.MaxElementsLimit})
	if err != nil {
		return nil, false, err
	}
	m := textnorm.NewMatcher(req.Query())
	var hits []FindHit
	for {
		p, err := b.r.Next(info.Name)
		if err != nil {
			return nil, false, err
		}
		for _, it := range p.Items {
			if req.Limit > 0 && len(hits) == req.Limit {
				return hits, true, nil
			}
			v, ok := b.ByID(it.Pointer.ID)
			if !ok {
				continue // cannot happen: nothing edits the book meanwhile
			}
			hits = append(hits, FindHit{Pointer: v.Pointer, ID: v.ID, Label: v.Label, Kind: v.Kind, Index: v.Index,
				Text: v.Text, excerpt: Highlight(v.Kind, v.Level, v.Text, m, ExcerptRunes)})
		}
		if !p.HasMore {
			return hits, false, nil
		}
	}
}

// findEntry lists the items naming an entry.
func (b *Book) findEntry(req FindRequest) (*FoundEntry, []FindHit, bool, error) {
	er, ok := b.r.(EntryReader)
	if !ok {
		return nil, nil, false, errNoCodex
	}
	e, res, more, err := er.FindEntry(req.Entry, search.Options{Limit: req.Limit, Kinds: req.Kinds,
		IncludeHeadings: req.Headings, Within: req.Within})
	if err != nil {
		return nil, nil, false, err
	}
	return &e, SearchHits(res, false), more, nil
}

// search runs an exact or ranked search.
func (b *Book) search(req FindRequest) ([]FindHit, error) {
	mode := bookview.Exact
	if req.Mode == FindRanked {
		mode = bookview.Ranked
	}
	res, err := b.r.Search(req.Query(), mode, search.Options{Limit: req.Limit, Kinds: req.Kinds,
		IncludeHeadings: req.Headings, Within: req.Within})
	if err != nil {
		return nil, err
	}
	return SearchHits(res, req.Mode == FindRanked), nil
}

// SearchHits turns search results into hits that show their snippets,
// with their scores when withScore.
func SearchHits(res []search.Result, withScore bool) []FindHit {
	hits := make([]FindHit, len(res))
	for i, r := range res {
		hits[i] = FindHit{Pointer: r.Pointer, ID: r.ID, Label: r.Pointer.Label, Kind: r.Kind, Index: r.Index,
			Snippet: r.Snippet, excerpt: r.Snippet}
		if withScore {
			hits[i].Score = r.Score
		}
	}
	return hits
}

// WithLimit returns f noting that limit may have cut its results (a
// search given no limit gets search.DefaultLimit).
func (f Found) WithLimit(limit int) Found {
	if limit == 0 {
		limit = search.DefaultLimit
	}
	f.limit, f.LimitReached = limit, len(f.Results) == limit
	return f
}

// WriteFound writes one line per result, `POINTER  KIND  excerpt`, with the
// score before the excerpt for a ranked search, to w, and the number of
// results to status.
func WriteFound(w, status io.Writer, f Found) {
	if f.Notice != "" {
		fmt.Fprintf(status, "aite: note: %s\n", f.Notice)
	}
	rows := make([][]string, len(f.Results))
	for i, h := range f.Results {
		rows[i] = []string{h.Pointer.String(), string(h.Kind)}
		switch f.Mode {
		case FindHybrid:
			rows[i] = append(rows[i], fmt.Sprintf("%.4f", h.Score)) // fused ranks: at most 2/61
		case FindRanked, FindSemantic:
			rows[i] = append(rows[i], fmt.Sprintf("%.2f", h.Score))
		}
		rows[i] = append(rows[i], h.excerpt)
	}
	WriteColumns(w, rows, "")
	switch {
	case len(f.Results) == 0:
		fmt.Fprintln(status, "no items match")
	case f.LimitReached:
		fmt.Fprintf(status, "%s (--limit %d reached: there may be more)\n", Plural(len(f.Results), "item"), f.limit)
	default:
		fmt.Fprintln(status, Plural(len(f.Results), "item"))
	}
}
