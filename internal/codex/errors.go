package codex

import "errors"

// Sentinel errors; every error of this package wraps one of them.
var (
	// ErrInvalid: an entry or a codex breaks a rule (no name, an unknown
	// kind, a repeated ID), or a file is not a codex.
	ErrInvalid = errors.New("invalid codex")
	// ErrNotFound: no entry has the given ID, name or alias.
	ErrNotFound = errors.New("no such entry")
	// ErrAmbiguous: a name names more than one entry.
	ErrAmbiguous = errors.New("ambiguous entry name")
)
