package document

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// validator compares the re-parsed window of a planned edit with the items
// the edit must produce.
type validator struct {
	d       *Document
	p       plan
	delta   int
	reg     Region
	i0, i1  int
	k0      int
	old2new map[int]int // container IDs
	new2old map[int]int
	exp     []*Item // expected items; nil marks the new item
	newItem *Item
}

func (v *validator) expected() []*Item {
	var exp []*Item
	for i := v.i0; i <= v.i1; i++ {
		if i == v.p.insert {
			exp = append(exp, nil)
		}
		if i < v.i1 && i != v.p.remove {
			exp = append(exp, v.d.at(i))
		}
	}
	return exp
}

// shifted returns where an unchanged item must be after the splice: items
// (never empty) ending at or before the splice stay, the others move.
func (v *validator) shifted(e *Item) (int, int) {
	if e.End() <= v.p.sp.Start {
		return e.Start(), e.End()
	}
	return e.Start() + v.delta, e.End() + v.delta
}

func (v *validator) run() error {
	v.old2new, v.new2old = map[int]int{}, map[int]int{}
	v.exp = v.expected()
	got := v.reg.Items
	for k := 0; k < max(len(v.exp), len(got)); k++ {
		if k >= len(v.exp) {
			return v.refuse("it would produce an extra block %s", v.describe(got[k]))
		}
		if k >= len(got) {
			return v.refuse("%s would disappear (merged into a neighbour)", v.name(v.exp[k]))
		}
		if err := v.check(v.exp[k], got[k]); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) check(e, g *Item) error {
	if e == nil {
		return v.checkNew(g)
	}
	if s, end := v.shifted(e); g.Start() != s || g.End() != end {
		if v.newItem != nil && g.Start() == s {
			return v.refuse("%s would change: the new text merges with it", v.name(e))
		}
		return v.refuse("%s would change: it would read as %s", v.name(e), v.describe(g))
	}
	if g.Kind != e.Kind || g.Level != e.Level {
		return v.refuse("%s would change from %s to %s", v.name(e), kindName(e), kindName(g))
	}
	if !v.bind(e, g) {
		return v.refuse("%s would move into another container (list, list item or quote)", v.name(e))
	}
	return nil
}

func (v *validator) checkNew(g *Item) error {
	switch {
	case g.Start() == v.p.newStart && g.End() > v.p.newEnd:
		return v.refuse("the new text would merge with the text after it into %s; end it so that it stays one block (for example with a complete sentence, a closed code fence or a closed HTML tag)", v.describe(g))
	case g.Start() == v.p.newStart && g.End() < v.p.newEnd:
		return v.refuse("the new text would make more than one block (the first would be %s); give exactly one block, or make several edits", v.describe(g))
	case g.Start() != v.p.newStart:
		return v.refuse("the new text would not stand as a block of its own here (it would be read as part of a neighbour or as a link reference definition)")
	}
	if v.p.kind != nil {
		if err := v.p.kind(g); err != nil {
			return fmt.Errorf("%w. Nothing was changed", err)
		}
	}
	v.newItem = g
	return nil
}

// bind checks that e and g sit in corresponding containers, keeping the
// correspondence of container instances one to one.
func (v *validator) bind(e, g *Item) bool {
	if len(e.Containers) != len(g.Containers) {
		return false
	}
	for i, c := range e.Containers {
		n := g.Containers[i]
		if c.Kind != n.Kind {
			return false
		}
		if m, ok := v.old2new[c.ID]; ok && m != n.ID {
			return false
		}
		if m, ok := v.new2old[n.ID]; ok && m != c.ID {
			return false
		}
		v.old2new[c.ID], v.new2old[n.ID] = n.ID, c.ID
	}
	return true
}

// result returns the window's items for the document: old items updated in
// place (IDs kept), the new item with a fresh ID, container IDs mapped back.
func (v *validator) result() []*Item {
	out := make([]*Item, len(v.reg.Items))
	for k, g := range v.reg.Items {
		for i := range g.Containers {
			g.Containers[i].ID = v.containerID(g.Containers[i].ID)
		}
		g.top += v.k0
		e := v.exp[k]
		if e == nil {
			g.ID = v.p.reuseID
			if g.ID == 0 {
				g.ID = v.d.nextID
				v.d.nextID++
			}
			out[k] = g
			continue
		}
		id, label := e.ID, e.Label
		*e = *g
		e.ID, e.Label = id, label
		if g == v.newItem {
			v.newItem = e
		}
		out[k] = e
	}
	return out
}

func (v *validator) containerID(n int) int {
	if o, ok := v.new2old[n]; ok {
		return o
	}
	o := v.d.nextCont
	v.d.nextCont++
	v.new2old[n] = o
	return o
}

func (v *validator) refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s %s: %s. Nothing was changed",
		ErrStructure, opName(v.p.op), v.p.target.Pointer(), fmt.Sprintf(format, args...))
}

func (v *validator) name(it *Item) string {
	if it == nil {
		return "the new item"
	}
	return fmt.Sprintf("%s %s", kindName(it), it.Pointer())
}

// describe names a re-parsed item by kind and an excerpt of its Markdown.
func (v *validator) describe(g *Item) string {
	src, base := v.reg.Src, v.reg.Base
	if g.End()-base > len(src) || g.Start() < base || g.Start() > g.End() {
		return kindName(g)
	}
	md := strings.TrimSpace(string(src[g.Start()-base : g.End()-base]))
	return fmt.Sprintf("%s %q", kindName(g), excerpt(md, 60))
}

func kindName(it *Item) string {
	if it.Kind == Heading {
		return fmt.Sprintf("heading (level %d)", it.Level)
	}
	return strings.ToLower(string(it.Kind))
}

func opName(op Op) string { return strings.ReplaceAll(string(op), "_", " ") }

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
