package document

import (
	"fmt"
	"sort"
	"time"
)

// deleteRange returns the bytes a delete removes: the item's lines and the
// blank separator after it; for the last item of a container that follows
// a sibling, the separator before it instead.
func (d *Document) deleteRange(it *Item) (int, int) {
	prev, next := d.At(it.Index()-1), d.At(it.Index()+1)
	gapEnd := d.text.Len()
	if next != nil {
		gapEnd = next.Start()
	}
	after := d.skipBlankLines(it.End(), gapEnd)
	if (next != nil && sameParent(it, next)) || prev == nil || !sameParent(prev, it) {
		return it.Start(), after
	}
	return d.blankStart(prev.End(), it.Start()), it.End()
}

// parent returns the ID of the container a deletion unit sits in: the list
// for a list item, else the innermost container (0 at top level).
func parent(it *Item) int {
	n := len(it.Containers)
	if it.Kind == ListItem && n >= 2 {
		return it.Containers[n-2].ID
	}
	if n == 0 {
		return 0
	}
	return it.Containers[n-1].ID
}

func sameParent(a, b *Item) bool {
	pa := parent(a)
	return pa == 0 || b.inContainer(pa)
}

// skipBlankLines returns the start of the first line after end (end is at
// the end of a line) that is not blank, or limit. Lines holding only
// whitespace and quote markers count as blank.
func (d *Document) skipBlankLines(end, limit int) int {
	i := end
	for i < limit {
		j := i
		for j < limit && d.text.At(j) != '\n' {
			j++
		}
		if !blankish(d.text.Slice(i, j)) && i != end {
			return i
		}
		if j >= limit {
			return limit
		}
		i = j + 1
	}
	return limit
}

// blankStart returns where the blank lines before start begin: the end of
// the last non-blank line at or after floor.
func (d *Document) blankStart(floor, start int) int {
	i := start
	for i > floor {
		j := i - 1 // the '\n' ending the previous line
		k := j
		for k > floor && d.text.At(k-1) != '\n' {
			k--
		}
		if !blankish(d.text.Slice(k, j)) {
			return j
		}
		i = k
	}
	return floor
}

// blankAfter reports whether the line after the one ending at end is blank
// (or absent).
func (d *Document) blankAfter(end int) bool {
	n := d.text.Len()
	i := end
	for i < n && d.text.At(i) != '\n' {
		i++
	}
	if i >= n {
		return true
	}
	j := i + 1
	for j < n && d.text.At(j) != '\n' {
		j++
	}
	return blankish(d.text.Slice(i+1, j))
}

// blankBefore reports whether the line before the one starting at start is
// blank (or absent).
func (d *Document) blankBefore(start int) bool {
	if start == 0 {
		return true
	}
	k := start - 1
	for k > 0 && d.text.At(k-1) != '\n' {
		k--
	}
	return blankish(d.text.Slice(k, start-1))
}

func blankish(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '>' && c != '\r' {
			return false
		}
	}
	return true
}

// apply validates a plan by re-parsing the window around it and commits it.
func (d *Document) apply(p plan) (EditResult, error) {
	k0, k1 := d.window(p)
	winStart, winEnd := 0, d.text.Len() // an empty document is one window
	if k1 >= k0 {
		winStart = min(d.top(k0).Start, p.sp.Start)
		winEnd = max(d.gapEnd(k1), p.sp.Start+len(p.sp.Old))
	}
	delta := len(p.sp.New) - len(p.sp.Old)
	// The edited source shares the pieces of this one: an edit copies its
	// new bytes and the window it re-parses, never the whole book.
	text := d.text.Splice(p.sp.Start, len(p.sp.Old), []byte(p.sp.New))
	base := winStart
	if base <= len(utf8BOM) {
		base = 0 // the parser looks for front matter at the start of the source
	}
	win := text.Slice(base, min(text.Len(), winEnd+delta+2)) // and the line ending after the window
	reg := d.parser.ParseWindow(win, base, winStart, winEnd+delta)
	i0, i1 := d.itemsInTops(k0, k1)
	v := validator{d: d, p: p, delta: delta, reg: reg, i0: i0, i1: i1, k0: k0}
	if err := v.run(); err != nil {
		return EditResult{}, err
	}
	if d.preview {
		res := EditResult{Op: p.op, Target: p.target.Pointer(), Pointer: p.target.Pointer(), Splice: p.sp}
		if p.op == OpReplace || p.op == OpDelete {
			res.MarkdownBefore = d.Markdown(p.target)
		}
		if n := v.newItem; n != nil {
			res.MarkdownAfter = string(win[n.Start()-base : n.End()-base])
		}
		return res, nil
	}
	res := EditResult{Op: p.op, Target: p.target.Pointer(), Splice: p.sp}
	switch p.op {
	case OpReplace, OpDelete:
		res.MarkdownBefore = d.Markdown(p.target)
	}
	d.commit(text, &v, k0, k1)
	if n := v.newItem; n != nil {
		res.Pointer = n.Pointer()
		res.MarkdownAfter = d.Markdown(n)
	} else {
		res.Pointer = p.target.Pointer()
	}
	if !p.noJournal {
		d.record(p, res)
	}
	return res, nil
}

// window returns the range of top-level blocks to re-parse: every block the
// splice touches, the target's block, and one neighbour on each side, and
// then the blocks that touch the window's ends (no blank line between), up
// to maxTouching more on each side. A neighbour shields the blocks beyond
// it only across a blank line: blocks that touch can read as one once the
// text before them changes (goldmark makes a table of a paragraph's last
// lines after the fact, and a setext underline right below the table then
// takes the lines left above it: "0)0\n0\n|-\n-" is one block, "0)\n0\n|-\n-"
// three).
func (d *Document) window(p plan) (int, int) {
	n := d.tops.n
	if n == 0 {
		return 0, -1
	}
	lo, hi := p.sp.Start, p.sp.Start+len(p.sp.Old)
	a := sort.Search(n, func(i int) bool { return d.top(i).End >= lo })
	b := sort.Search(n, func(i int) bool { return d.top(i).Start > hi }) - 1
	top := min(max(p.top, 0), n-1)
	k0, k1 := max(0, min(a, top)-1), min(n-1, max(b, top)+1)
	for i := 0; i < maxTouching && k0 > 0 && !d.blankBefore(d.top(k0).Start); i++ {
		k0--
	}
	for i := 0; i < maxTouching && k1 < n-1 && !d.blankBefore(d.top(k1+1).Start); i++ {
		k1++
	}
	return k0, k1
}

// maxTouching bounds how far a window reaches over blocks that touch it, so
// that an edit of a book written without blank lines stays cheap.
const maxTouching = 16

// gapEnd returns the end of the blank lines after top k: the end of the
// line before the next top, or the end of the source. A window ending
// there shows a block that runs on over blank lines (an unclosed HTML
// block or fence at the end of the book).
func (d *Document) gapEnd(k int) int {
	if k+1 >= d.tops.n {
		return d.text.Len()
	}
	cur, next := d.top(k), d.top(k+1)
	e := max(cur.End, next.Start-1)
	if e > cur.End && d.text.At(e-1) == '\r' {
		e--
	}
	return e
}

// itemsInTops returns the item index range whose Top lies in [k0, k1].
func (d *Document) itemsInTops(k0, k1 int) (int, int) {
	i0 := sort.Search(d.items.n, func(i int) bool { return d.at(i).Top() >= k0 }) // items are in Top order
	i1 := i0
	for it := range d.walk(i0, d.items.n) {
		if it.Top() > k1 {
			break
		}
		i1++
	}
	return i0, i1
}

// commit swaps the validated window into the document: it rebuilds the
// chunks the window touches and moves the later ones (chunk.go).
func (d *Document) commit(text Text, v *validator, k0, k1 int) {
	repl := v.result()
	dTop := len(v.reg.Tops) - (k1 - k0 + 1)
	d.replaceItems(v.i0, v.i1, repl, v.delta, dTop)
	d.replaceTops(k0, k1+1, v.reg.Tops, v.delta)
	if v.p.remove >= 0 {
		delete(d.byID, v.p.target.ID)
		d.unlabel(v.p.target)
	}
	for _, it := range repl {
		d.byID[it.ID] = it
	}
	d.text = text
	if len(d.text.parts) > maxPieces {
		d.text = TextOf(d.text.Bytes())
	}
	from, _ := d.sectionBounds(v.i0)
	_, to := d.sectionBounds(max(v.i0, v.i0+len(repl)-1))
	d.relabel(from, to)
	d.version++
	ids := make([]int, len(repl))
	for i, it := range repl {
		ids[i] = it.ID
	}
	d.noteChange(Change{Text: v.p.sp, At: v.i0, Old: v.i1 - v.i0, IDs: ids, Next: d.nextID})
}

func (d *Document) now() time.Time {
	if d.clock != nil {
		return d.clock()
	}
	return time.Now()
}

// SetClock injects the clock used for journal times (tests).
func (d *Document) SetClock(now func() time.Time) { d.clock = now }

func (d *Document) replaceFrontMatter(it *Item, markdown string) (EditResult, error) {
	lines := splitText(markdown)
	le := d.lineEnding(it.End())
	text := ""
	for i, l := range lines {
		if i > 0 {
			text += le
		}
		text += l
	}
	if n := len(lines); n < 2 || lines[0] != lines[n-1] || (lines[0] != "---" && lines[0] != "+++") {
		return EditResult{}, fmt.Errorf("%w: front matter must start and end with a --- (YAML) or +++ (TOML) line", ErrStructure)
	}
	p := plan{op: OpReplace, target: it, remove: it.Index(), insert: it.Index(), top: it.Top(), reuseID: it.ID,
		sp: Splice{Start: it.Start(), Old: d.Markdown(it), New: text}, kind: sameKindRule(it)}
	p.newStart, p.newEnd = it.Start(), it.Start()+len(text)
	return d.apply(p)
}
