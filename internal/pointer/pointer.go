// Package pointer is the semantic pointer value type of aite: one address
// (`id:label`, e.g. `24:1.1.1.p21`) used everywhere an item of a book is
// named — tools, cursors, evidence, edits, answers, the HTTP API and the CLI.
//
// There is one lenient parser (Parse) and one canonical formatter (String).
// Parse accepts `id:label`, a bare label (`1.1.p21`, also `1.2.3p34`), a bare
// number (an ID), surrounding whitespace and a trailing `.`. The label
// algorithm lives in Labeler.
package pointer

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrSyntax is returned (wrapped) when a string is not a pointer at all.
var ErrSyntax = errors.New("not a pointer")

// SyntaxError says why a string is not a pointer. It wraps ErrSyntax.
type SyntaxError struct {
	Input  string
	Detail string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%v: %q: %s", ErrSyntax, e.Input, e.Detail)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

func syntaxErr(input, format string, args ...any) error {
	return &SyntaxError{Input: input, Detail: fmt.Sprintf(format, args...)}
}

// Pointer addresses one item. ID is 0 when only a label was given; Label is
// empty when only an ID was given.
type Pointer struct {
	ID    int
	Label string
}

// String is the canonical form: `id:label`, or the part that is known.
func (p Pointer) String() string { return string(p.AppendTo(nil)) }

// AppendTo appends the canonical form to b.
func (p Pointer) AppendTo(b []byte) []byte {
	if p.ID > 0 {
		b = strconv.AppendInt(b, int64(p.ID), 10)
		if p.Label != "" {
			b = append(b, ':')
		}
	}
	return append(b, p.Label...)
}

// MarshalText writes the canonical form, so JSON carries "24:1.1.p21".
func (p Pointer) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText parses leniently; an empty text is the zero pointer.
func (p *Pointer) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = Pointer{}
		return nil
	}
	q, err := Parse(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// IsZero reports whether p names nothing.
func (p Pointer) IsZero() bool { return p.ID == 0 && p.Label == "" }

// Parse reads a pointer leniently. Accepted forms: `24:1.1.p21`, `1.1.p21`,
// `1.1p21`, `p3`, `1.2`, `24`, each with optional surrounding whitespace and
// a trailing `.`. A bare number is an ID. The label is returned in canonical
// form (`1.1.p21`).
func Parse(s string) (Pointer, error) {
	raw := s
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ".")
	s = strings.TrimSpace(s)
	if s == "" {
		return Pointer{}, syntaxErr(raw, "empty; expected id:label such as 24:1.1.p21")
	}
	if idPart, label, ok := strings.Cut(s, ":"); ok {
		id, err := parseID(strings.TrimSpace(idPart))
		if err != nil {
			return Pointer{}, syntaxErr(raw, "the part before ':' must be an item ID (a positive number)")
		}
		label = strings.TrimSuffix(strings.TrimSpace(label), ".")
		if label == "" {
			return Pointer{ID: id}, nil
		}
		l, err := CanonicalLabel(label)
		if err != nil {
			return Pointer{}, syntaxErr(raw, "%v", err)
		}
		return Pointer{ID: id, Label: l}, nil
	}
	if isDigits(s) {
		id, err := parseID(s)
		if err != nil {
			return Pointer{}, syntaxErr(raw, "%v", err)
		}
		return Pointer{ID: id}, nil
	}
	l, err := CanonicalLabel(s)
	if err != nil {
		return Pointer{}, syntaxErr(raw, "%v", err)
	}
	return Pointer{Label: l}, nil
}

func parseID(s string) (int, error) {
	if !isDigits(s) {
		return 0, errors.New("an ID is a positive number")
	}
	id, err := strconv.Atoi(s)
	if err != nil || id <= 0 {
		return 0, errors.New("an ID is a positive number")
	}
	return id, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// CanonicalLabel validates a label and returns its canonical spelling.
// Heading labels are dot-separated numbers (`1`, `1.0.2`); item labels add
// `.p<n>` (or are `p<n>` before the first heading). `1.2p3` and `P3` are
// accepted.
func CanonicalLabel(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("empty label")
	}
	head, p, hasP, err := splitP(s)
	if err != nil {
		return "", err
	}
	var parts []string
	if head != "" {
		parts = strings.Split(head, ".")
		for _, part := range parts {
			if !isDigits(part) || len(part) > 9 {
				return "", fmt.Errorf("label part %q is not a number", part)
			}
		}
		if !hasP && strings.Trim(head, "0.") == "" {
			return "", errors.New("a heading label needs a non-zero counter")
		}
		for i, part := range parts {
			parts[i] = strconv.Itoa(atoi(part))
		}
	}
	if hasP {
		parts = append(parts, "p"+strconv.Itoa(p))
	}
	return strings.Join(parts, "."), nil
}

// splitP separates `1.2.p3` / `1.2p3` / `p3` into heading part and p number.
func splitP(s string) (head string, p int, hasP bool, err error) {
	i := strings.LastIndexAny(s, "pP")
	if i < 0 {
		return s, 0, false, nil
	}
	num := s[i+1:]
	if !isDigits(num) || len(num) > 9 {
		return "", 0, false, fmt.Errorf("%q must be followed by a number", s[i:i+1])
	}
	p = atoi(num)
	if p <= 0 {
		return "", 0, false, errors.New("item numbers start at p1")
	}
	head = strings.TrimSuffix(s[:i], ".")
	return head, p, true, nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// SplitLabel returns the heading part of a canonical label and its p number
// (0 for a heading label). `1.1.p21` → ("1.1", 21); `p3` → ("", 3); `1.2` → ("1.2", 0).
func SplitLabel(label string) (heading string, p int) {
	i := strings.LastIndexByte(label, 'p')
	if i < 0 {
		return label, 0
	}
	return strings.TrimSuffix(label[:i], "."), atoi(label[i+1:])
}

// Compare orders two canonical labels of the same document structure in
// document order: it returns -1, 0 or +1. Heading counters compare
// numerically; an item label sorts after its heading and before the next one.
func Compare(a, b string) int {
	ah, ap := SplitLabel(a)
	bh, bp := SplitLabel(b)
	if c := compareCounters(ah, bh); c != 0 {
		return c
	}
	switch {
	case ap < bp:
		return -1
	case ap > bp:
		return 1
	}
	return 0
}

func compareCounters(a, b string) int {
	as, bs := splitCounters(a), splitCounters(b)
	for i := 0; i < len(as) || i < len(bs); i++ {
		x, y := at(as, i), at(bs, i)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func splitCounters(s string) []int {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ".")
	out := make([]int, len(parts))
	for i, p := range parts {
		out[i] = atoi(p)
	}
	return out
}

func at(xs []int, i int) int {
	if i < len(xs) {
		return xs[i]
	}
	return -1
}
