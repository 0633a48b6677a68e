package document

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/pointer"
)

// ErrNotFound is wrapped by errors for pointers that name no item.
var ErrNotFound = errors.New("no such item")

// ErrAmbiguous is wrapped by errors for a bare number that is the ID of one
// item and the label of another (a top-level heading).
var ErrAmbiguous = errors.New("ambiguous pointer")

// PointerError explains why a pointer did not resolve and names the nearest
// existing pointers, so a person or a model can correct it.
type PointerError struct {
	Input   string
	Reason  string
	Nearest []pointer.Pointer
	Err     error // ErrNotFound or pointer.ErrSyntax
}

func (e *PointerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pointer %q: %s", e.Input, e.Reason)
	if len(e.Nearest) > 0 {
		b.WriteString("; nearest pointers: ")
		for i, p := range e.Nearest {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.String())
		}
	}
	return b.String()
}

func (e *PointerError) Unwrap() error { return e.Err }

// Resolve finds the item a pointer string names. `id:label` and a bare
// number resolve by ID (the label may be stale: the item's current pointer
// tells the truth); a bare label resolves by the current labels. A bare
// number that is also the label of another item (a top-level heading `2`)
// is refused as ambiguous, naming both; `2:` is the ID alone.
func (d *Document) Resolve(s string) (*Item, error) {
	p, err := pointer.Parse(s)
	if err != nil {
		reason := err.Error()
		var se *pointer.SyntaxError
		if errors.As(err, &se) {
			reason = "not a pointer: " + se.Detail
		}
		return nil, &PointerError{Input: s, Reason: reason, Nearest: d.firstPointers(3), Err: err}
	}
	if p.Label == "" && bareNumber(s) {
		if err := d.ambiguous(p, s); err != nil {
			return nil, err
		}
	}
	return d.ResolvePointer(p, s)
}

// bareNumber reports whether s is a number alone (no `:`), as Parse reads it.
func bareNumber(s string) bool {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "."))
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// ambiguous refuses a bare number whose ID and label name different items.
func (d *Document) ambiguous(p pointer.Pointer, input string) error {
	byID, byLabel := d.ByID(p.ID), d.byLabel(strconv.Itoa(p.ID))
	if byID == nil || byLabel == nil || byID == byLabel {
		return nil
	}
	return &PointerError{Input: input, Err: ErrAmbiguous,
		Reason: fmt.Sprintf("ambiguous: the ID %d names %s and the heading label %d names %s; write the whole pointer (or %d: for the ID alone)",
			p.ID, byID.Pointer(), p.ID, byLabel.Pointer(), p.ID),
		Nearest: []pointer.Pointer{byID.Pointer(), byLabel.Pointer()}}
}

// ResolvePointer resolves a parsed pointer; input is used in error messages.
func (d *Document) ResolvePointer(p pointer.Pointer, input string) (*Item, error) {
	if p.ID > 0 {
		if it := d.ByID(p.ID); it != nil {
			return it, nil
		}
		return nil, d.missingID(p, input)
	}
	if it := d.byLabel(p.Label); it != nil {
		return it, nil
	}
	return nil, &PointerError{Input: input, Reason: fmt.Sprintf("no item has the label %s", p.Label),
		Nearest: d.nearLabel(p.Label, 3), Err: ErrNotFound}
}

func (d *Document) missingID(p pointer.Pointer, input string) error {
	e := &PointerError{Input: input, Err: ErrNotFound}
	if p.ID >= d.nextID {
		e.Reason = fmt.Sprintf("no item has the ID %d (IDs go up to %d)", p.ID, d.nextID-1)
	} else {
		e.Reason = fmt.Sprintf("the item with ID %d no longer exists (it was deleted, or rewritten by another program)", p.ID)
	}
	label := p.Label
	if label == "" && bareNumber(input) {
		label = strconv.Itoa(p.ID) // a bare number may have meant a heading
	}
	if label != "" {
		if it := d.byLabel(label); it != nil {
			e.Reason += fmt.Sprintf("; the label %s now names %s", label, it.Pointer())
			e.Nearest = append(e.Nearest, it.Pointer())
		} else if p.Label != "" {
			e.Nearest = d.nearLabel(p.Label, 3)
		}
	}
	if len(e.Nearest) == 0 {
		e.Nearest = d.nearID(p.ID, 3)
	}
	return e
}

// nearLabel returns up to n items around where label would stand in
// document order.
func (d *Document) nearLabel(label string, n int) []pointer.Pointer {
	d.force()
	i := sort.Search(d.items.n, func(i int) bool {
		return pointer.Compare(d.at(i).Label, label) >= 0
	})
	from := max(0, i-n/2-1)
	if i >= d.items.n {
		from = max(0, d.items.n-n)
	}
	return d.pointersFrom(from, n)
}

// nearID returns up to n items whose IDs are closest to id.
func (d *Document) nearID(id, n int) []pointer.Pointer {
	d.force()
	cands := slices.Clone(d.flatItems())
	dist := func(it *Item) int { return max(it.ID-id, id-it.ID) }
	sort.SliceStable(cands, func(a, b int) bool { return dist(cands[a]) < dist(cands[b]) })
	cands = cands[:min(n, len(cands))]
	sort.Slice(cands, func(a, b int) bool { return cands[a].Index() < cands[b].Index() })
	out := make([]pointer.Pointer, len(cands))
	for i, it := range cands {
		out[i] = it.Pointer()
	}
	return out
}

func (d *Document) firstPointers(n int) []pointer.Pointer { return d.pointersFrom(0, n) }

func (d *Document) pointersFrom(from, n int) []pointer.Pointer {
	var out []pointer.Pointer
	for i := from; i < d.Len() && len(out) < n; i++ {
		out = append(out, d.item(i).Pointer())
	}
	return out
}
