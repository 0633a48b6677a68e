package codex

import (
	"github.com/aitexteditor/aite/internal/document"
)

// Facts as of a point: a fact is known from its earliest evidence item on,
// so an agent rewriting an early chapter is told only what the book has
// shown by then. Evidence pointers resolve by item ID (document.Resolve),
// so edits around them do not move a fact.

// FactsAsOf returns the facts of e known at the item with position index
// in d: facts whose earliest evidence item comes at or before it, and
// facts without evidence (timeless). Facts whose evidence names no item
// any more are left out.
func (e *Entry) FactsAsOf(d *document.Document, index int) []Fact {
	var out []Fact
	for _, f := range e.Facts {
		at, ok := FactIndex(d, f)
		if ok && at <= index {
			out = append(out, f)
		}
	}
	return out
}

// FactIndex returns the position of a fact's earliest evidence item (-1
// for a fact without evidence), and false when none of its evidence
// resolves.
func FactIndex(d *document.Document, f Fact) (int, bool) {
	if len(f.Evidence) == 0 {
		return -1, true
	}
	best, ok := 0, false
	for _, p := range f.Evidence {
		it, err := d.Resolve(p)
		if err != nil {
			continue
		}
		if !ok || it.Index() < best {
			best, ok = it.Index(), true
		}
	}
	return best, ok
}
