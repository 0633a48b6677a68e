package search

import (
	"fmt"
	"math"
	"slices"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// Limits of Options.Limit.
const (
	DefaultLimit = 20
	MaxLimit     = 1000
)

// Options restrict and size a search.
type Options struct {
	// Limit is the number of results to return: 0 means DefaultLimit,
	// otherwise it must be 1..MaxLimit.
	Limit int
	// Kinds keeps only items of these kinds; none keeps every kind.
	Kinds []document.Kind
	// IncludeHeadings false skips Heading items. It applies together with
	// Kinds: a heading is returned only if both allow it.
	IncludeHeadings bool
	// Within is a heading pointer: only the items of its section (the
	// heading itself and everything up to the next heading of the same or a
	// higher level) are searched. A pointer that does not resolve gives the
	// document's resolve error; one that names another kind of item gives
	// an error wrapping ErrNotHeading.
	Within string
}

// Result is one hit of a search.
type Result struct {
	Pointer pointer.Pointer `json:"pointer"`
	ID      int             `json:"id"`
	Index   int             `json:"index"`
	Kind    document.Kind   `json:"kind"`
	// Score is the BM25 score for Ranked and the number of occurrences of
	// the phrase for Exact.
	Score float64 `json:"score"`
	// Snippet is up to about 160 runes of the item's Text around the first
	// match, white space collapsed, every match inside it wrapped in ** **,
	// with … where the text was cut.
	Snippet string `json:"snippet"`
	// Matches counts the matched occurrences in the item: words whose stem
	// is a query term for Ranked, phrase occurrences for Exact.
	Matches int `json:"matches"`
}

// filter is a validated Options.
type filter struct {
	limit    int
	kinds    []document.Kind
	headings bool
	from, to int // Index range [from, to)
}

// newFilter validates opt against d.
func newFilter(d *document.Document, opt Options) (filter, error) {
	f := filter{limit: opt.Limit, kinds: opt.Kinds, headings: opt.IncludeHeadings, to: math.MaxInt}
	if f.limit == 0 {
		f.limit = DefaultLimit
	}
	if f.limit < 1 || f.limit > MaxLimit {
		return f, fmt.Errorf("%w: limit must be between 1 and %d (got %d)", ErrRange, MaxLimit, opt.Limit)
	}
	for _, k := range opt.Kinds {
		if !slices.Contains(document.Kinds, k) {
			return f, fmt.Errorf("%w: unknown item kind %q; the kinds are %v", ErrRange, k, document.Kinds)
		}
	}
	if opt.Within == "" {
		return f, nil
	}
	it, err := d.Resolve(opt.Within)
	if err != nil {
		return f, err
	}
	if it.Kind != document.Heading {
		return f, fmt.Errorf("%w: within must name a heading, but %s is a %s; give the pointer of the heading whose section to search",
			ErrNotHeading, it.Pointer(), it.Kind)
	}
	f.from, f.to = it.Index(), d.SectionEnd(it.Index())
	return f, nil
}

// keep reports whether an item passes the filter.
func (f *filter) keep(it *document.Item) bool {
	if it.Index() < f.from || it.Index() >= f.to {
		return false
	}
	if it.Kind == document.Heading && !f.headings {
		return false
	}
	return len(f.kinds) == 0 || slices.Contains(f.kinds, it.Kind)
}

// result makes a Result for an item.
func result(it *document.Item, score float64, matches int, snippet string) Result {
	return Result{Pointer: it.Pointer(), ID: it.ID, Index: it.Index(), Kind: it.Kind,
		Score: score, Matches: matches, Snippet: snippet}
}
