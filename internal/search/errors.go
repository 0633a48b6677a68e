package search

import "errors"

// Sentinel errors; every error of this package wraps one of them, except
// the pointer errors of Options.Within, which are the document's own.
var (
	// ErrEmptyQuery: the query or phrase has no words.
	ErrEmptyQuery = errors.New("empty query (no words)")
	// ErrRange: a limit is out of its range, or a kind is not one of
	// document.Kinds.
	ErrRange = errors.New("out of range")
	// ErrNotHeading: Options.Within names an item that is not a heading.
	ErrNotHeading = errors.New("not a heading")
)
