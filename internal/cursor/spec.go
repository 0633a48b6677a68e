// Package cursor holds named, stateful streams over a document's items —
// cursors — that return the items in portions bounded by a number of items
// and a number of bytes, with filters (kinds, keywords, regular expression,
// section), forward or backward, and target sets: named selections of items
// stored by ID. A Registry keeps the cursors and target sets of one
// session over one document (BOOK_CORE § 6).
//
// Positions are kept by item ID, so cursors keep working after edits: items
// inserted behind the position are not revisited, items inserted ahead are
// visited, deleted items are skipped. A Registry is not safe for concurrent
// use; the editor session serialises access.
package cursor

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// Type is the kind of cursor.
type Type string

// Cursor types.
const (
	FullScan Type = "full_scan"
	Keyword  Type = "keyword"
	Filtered Type = "filtered"
	Search   Type = "search"
)

// Limits and defaults of § 6.
const (
	MaxElementsLimit   = 200
	MaxBytesLimit      = 65536
	MaxNameLength      = 96
	DefaultMaxElements = 20
	DefaultMaxBytes    = 12000
)

// Names of the default cursors every registry has.
const (
	WholeBookForward  = "CUR_WHOLE_BOOK_FORWARD"
	WholeBookBackward = "CUR_WHOLE_BOOK_BACKWARD"
)

// Errors. Cursor-state errors carry the exact texts of § 6.
var (
	ErrNotDefined = errors.New("cursor not defined")
	ErrComplete   = errors.New("cursor complete")
	ErrSpec       = errors.New("invalid cursor parameters")
	ErrTargets    = errors.New("target set")
)

// Spec describes a cursor. Use NewSpec for the defaults (content and
// headings included, forward).
type Spec struct {
	Name            string          `json:"name,omitempty"`
	Type            Type            `json:"type"`
	MaxElements     int             `json:"maxElements,omitempty"`
	MaxBytes        int             `json:"maxBytes,omitempty"`
	Backward        bool            `json:"backward,omitempty"`
	IncludeContent  bool            `json:"includeContent"`
	IncludeHeadings bool            `json:"includeHeadings"`
	StartAfter      string          `json:"startAfterPointer,omitempty"`
	Kinds           []document.Kind `json:"kinds,omitempty"`
	Keywords        []string        `json:"keywords,omitempty"`
	Regex           string          `json:"regex,omitempty"`
	Within          string          `json:"within,omitempty"`
	Description     string          `json:"filterDescription,omitempty"`
	// IDs is the ordered item list of a search cursor.
	IDs []int `json:"-"`
}

// NewSpec returns a spec of the given type with the defaults.
func NewSpec(t Type) Spec {
	return Spec{Type: t, IncludeContent: true, IncludeHeadings: true}
}

func specErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSpec, fmt.Sprintf(format, args...))
}

// check validates the parameters that need no document and fills defaults.
func (s *Spec) check() error {
	s.Name = strings.TrimSpace(s.Name)
	if n := len([]rune(s.Name)); n > MaxNameLength {
		return specErr("a cursor name has at most %d characters (got %d)", MaxNameLength, n)
	}
	if s.MaxElements == 0 {
		s.MaxElements = DefaultMaxElements
	}
	if s.MaxBytes == 0 {
		s.MaxBytes = DefaultMaxBytes
	}
	if s.MaxElements < 1 || s.MaxElements > MaxElementsLimit {
		return specErr("maxElements must be between 1 and %d (got %d)", MaxElementsLimit, s.MaxElements)
	}
	if s.MaxBytes < 1 || s.MaxBytes > MaxBytesLimit {
		return specErr("maxBytes must be between 1 and %d (got %d)", MaxBytesLimit, s.MaxBytes)
	}
	s.Keywords = cleanKeywords(s.Keywords)
	switch s.Type {
	case FullScan, Search:
	case Keyword:
		if len(s.Keywords) == 0 {
			return specErr("a keyword cursor needs at least one keyword with a word in it")
		}
	case Filtered:
		if len(s.Kinds) == 0 && len(s.Keywords) == 0 && s.Regex == "" && s.Within == "" {
			what := "no filter was given"
			if s.Description != "" {
				what = fmt.Sprintf("the filter is described as %q but no filter parameter was given", s.Description)
			}
			return specErr("%s; give kinds, keywords, regex or within (or use a full-scan cursor)", what)
		}
	default:
		return specErr("unknown cursor type %q (full_scan, keyword, filtered, search)", s.Type)
	}
	for _, k := range s.Kinds {
		if _, ok := document.ParseKind(string(k)); !ok {
			return specErr("unknown item kind %q; kinds are %s", k, kindList())
		}
	}
	if s.Regex != "" {
		if _, err := regexp.Compile(s.Regex); err != nil {
			return specErr("regex %q does not compile: %v", s.Regex, err)
		}
	}
	return nil
}

func cleanKeywords(ks []string) []string {
	var out []string
	for _, k := range ks {
		if k = strings.TrimSpace(k); len(textnorm.Terms(k)) > 0 {
			out = append(out, k)
		}
	}
	return out
}

func kindList() string {
	names := make([]string, len(document.Kinds))
	for i, k := range document.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

func (t Type) prefix() string {
	switch t {
	case Keyword:
		return "kwd"
	case Filtered:
		return "flt"
	case Search:
		return "srch"
	}
	return "fsc"
}
