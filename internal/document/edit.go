package document

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/pointer"
)

// Op names a domain operation.
type Op string

// The domain operations.
const (
	OpReplace      Op = "replace"
	OpInsertBefore Op = "insert_before"
	OpInsertAfter  Op = "insert_after"
	OpDelete       Op = "delete"
	// OpAppend adds one block at the end of the book (no target): the way
	// an empty book gets its first item.
	OpAppend Op = "append"
)

// Splice is a byte-level change of the source: Old at Start becomes New.
type Splice struct {
	Start int    `json:"start"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// EditResult reports an applied operation.
type EditResult struct {
	Op Op
	// Target is the pointer of the item the operation named, as it was
	// before the edit.
	Target pointer.Pointer
	// Pointer is the affected item after the edit: the replaced or inserted
	// item (for a delete, the deleted item's last pointer).
	Pointer        pointer.Pointer
	MarkdownBefore string
	MarkdownAfter  string
	Splice         Splice
}

// plan is a proposed splice plus what the re-parse must show.
type plan struct {
	op     Op
	target *Item
	sp     Splice
	remove int // index of the item that disappears (replace, delete), or -1
	insert int // index the new item takes (replace, inserts), or -1
	// the exact span the new item must have in the new source
	newStart, newEnd int
	kind             func(*Item) error
	reuseID          int // ID for the new item (undo of a delete), 0 for fresh
	top              int // top-level block the change touches
	noJournal        bool
}

// Preview tells what an operation (OpReplace, OpInsertBefore,
// OpInsertAfter, OpDelete) would do without doing it: the same checks
// refuse it with the same errors, and the result is the one the operation
// would report, except that Pointer is the target's pointer (an inserted
// item has no ID before it exists). The document does not change.
func (d *Document) Preview(op Op, ptr, markdown string) (EditResult, error) {
	d.preview = true
	defer func() { d.preview = false }()
	switch op {
	case OpReplace:
		return d.ReplaceText(ptr, markdown)
	case OpInsertBefore:
		return d.InsertBefore(ptr, markdown)
	case OpInsertAfter:
		return d.InsertAfter(ptr, markdown)
	case OpDelete:
		return d.Delete(ptr)
	case OpAppend:
		return d.Append(markdown)
	}
	return EditResult{}, fmt.Errorf("%w: unknown operation %q (replace, insert_before, insert_after, delete, append)", ErrUnsupported, op)
}

// ReplaceText replaces the item's content. A heading stays a heading of the
// same level (a bare title gets the original `#` prefix); list items and
// quotes get their container prefix re-applied when the text lacks it.
func (d *Document) ReplaceText(ptr, markdown string) (EditResult, error) {
	if err := d.editable(); err != nil {
		return EditResult{}, err
	}
	it, err := d.Resolve(ptr)
	if err != nil {
		return EditResult{}, err
	}
	if it.Kind == FrontMatter {
		return d.replaceFrontMatter(it, markdown)
	}
	text, err := compose(markdown, it.Shape, headingLevel(it), d.lineEnding(it.End()))
	if err != nil {
		return EditResult{}, err
	}
	p := plan{op: OpReplace, target: it, remove: it.Index(), insert: it.Index(), top: it.Top(), reuseID: it.ID,
		sp: Splice{Start: it.Start(), Old: d.Markdown(it), New: text}}
	p.newStart, p.newEnd = it.Start(), it.Start()+len(text)
	p.kind = sameKindRule(it)
	return d.apply(p)
}

// editable builds every item of a decoded document (an edit may touch
// any of them) and refuses edits of a document that has no parser.
func (d *Document) editable() error {
	if d.parser == nil {
		return fmt.Errorf("%w: this copy of the book was loaded for reading only", ErrUnsupported)
	}
	d.force()
	return nil
}

func headingLevel(it *Item) int {
	if it.Kind == Heading {
		return it.Level
	}
	return 0
}

func sameKindRule(it *Item) func(*Item) error {
	return func(n *Item) error {
		switch {
		case it.Kind == Heading && n.Kind != Heading:
			return fmt.Errorf("%w: the new text of heading %s is not a heading (it would read as %s); a heading stays a heading of level %d",
				ErrHeading, it.Pointer(), n.Kind, it.Level)
		case it.Kind == Heading && n.Level != it.Level:
			return fmt.Errorf("%w: the heading %s is level %d and would become level %d; the level cannot change",
				ErrHeading, it.Pointer(), it.Level, n.Level)
		case it.Kind != Heading && n.Kind == Heading:
			return fmt.Errorf("%w: the new text would create a heading (level %d) in place of %s; headings cannot be added by an edit, write plain text",
				ErrHeading, n.Level, it.Pointer())
		}
		return nil
	}
}

func notHeading(n *Item) error {
	if n.Kind == Heading {
		return fmt.Errorf("%w: the new text would create a heading (level %d); headings cannot be added by an edit, write plain text",
			ErrHeading, n.Level)
	}
	return nil
}

// InsertBefore inserts one new non-heading item before the target, in the
// same container: next to a list item it becomes a sibling list item, next
// to a quote paragraph it is quoted.
func (d *Document) InsertBefore(ptr, markdown string) (EditResult, error) {
	if err := d.editable(); err != nil {
		return EditResult{}, err
	}
	it, err := d.Resolve(ptr)
	if err != nil {
		return EditResult{}, err
	}
	if it.Kind == FrontMatter {
		return EditResult{}, fmt.Errorf("%w: nothing can stand before the front matter %s; insert after it instead", ErrUnsupported, it.Pointer())
	}
	le := d.lineEnding(it.Start())
	prefix, sep, err := d.beforeShape(it, le)
	if err != nil {
		return EditResult{}, err
	}
	text, err := compose(markdown, Shape{Prefix: prefix}, 0, le)
	if err != nil {
		return EditResult{}, err
	}
	lead := ""
	if it.Kind != ListItem && !d.blankBefore(it.Start()) {
		lead = blankLine(prefix) + le // keep the new block apart from the line above
	}
	p := plan{op: OpInsertBefore, target: it, remove: -1, insert: it.Index(), kind: notHeading, top: it.Top(),
		sp: Splice{Start: it.Start(), New: lead + text + sep}}
	p.newStart = it.Start() + len(lead)
	p.newEnd = p.newStart + len(text)
	return d.apply(p)
}

func (d *Document) beforeShape(it *Item, le string) (prefix, sep string, err error) {
	toks := lexPrefix(lastLine(it.Shape.Prefix))
	if it.Kind == ListItem {
		m := lastMarker(toks)
		if m < 0 {
			return "", "", fmt.Errorf("%w: cannot find the list marker of %s", ErrUnsupported, it.Pointer())
		}
		for _, t := range toks[:m] {
			if t.kind == tokMarker {
				return "", "", fmt.Errorf("%w: the line of %s also opens an enclosing list item, so nothing can be inserted before it; insert after the item before it instead",
					ErrUnsupported, it.Pointer())
			}
		}
		prefix = siblingPrefix(toks, m, false)
		sep = le
		if !it.Shape.Tight {
			sep += blankLine(contForm(toks[:m])) + le
		}
		return prefix, sep, nil
	}
	prefix = blockPrefix(it, toks)
	return prefix, le + blankLine(prefix) + le, nil
}

// blockPrefix is the container prefix for a new block next to it: the
// continuation form of its prefix, without the indentation that belongs to
// an indented code block itself.
func blockPrefix(it *Item, toks []ptoken) string {
	p := contForm(toks)
	if it.Kind == Code && len(toks) > 0 && toks[len(toks)-1].kind == tokIndent {
		p = trimCodeIndent(p)
	}
	return p
}

func trimCodeIndent(p string) string {
	if strings.HasSuffix(p, "\t") {
		return p[:len(p)-1]
	}
	for n := 0; n < 4 && strings.HasSuffix(p, " "); n++ {
		p = p[:len(p)-1]
	}
	return p
}

// InsertAfter inserts one new non-heading item after the target, in the
// same container. After a list item the new sibling list item comes after
// the whole list item, its nested items included.
func (d *Document) InsertAfter(ptr, markdown string) (EditResult, error) {
	if err := d.editable(); err != nil {
		return EditResult{}, err
	}
	it, err := d.Resolve(ptr)
	if err != nil {
		return EditResult{}, err
	}
	anchor, index := it.End(), it.Index()+1
	toks := lexPrefix(lastLine(it.Shape.Prefix))
	var prefix, sep string
	le := d.lineEnding(it.End())
	if m := lastMarker(toks); it.Kind == ListItem && m >= 0 {
		last := d.lastInListItem(it)
		anchor, index = last.End(), last.Index()+1
		prefix = siblingPrefix(toks, m, true)
		sep = le
		if !it.Shape.Tight {
			sep += blankLine(contForm(toks[:m])) + le
		}
	} else {
		if it.Kind == FrontMatter {
			toks = nil
		}
		prefix = blockPrefix(it, toks)
		sep = le + blankLine(prefix) + le
	}
	text, err := compose(markdown, Shape{Prefix: prefix}, 0, le)
	if err != nil {
		return EditResult{}, err
	}
	trail := ""
	if it.Kind != ListItem && !d.blankAfter(anchor) {
		trail = le + blankLine(prefix) // keep the new block apart from the line below
	}
	p := plan{op: OpInsertAfter, target: it, remove: -1, insert: index, kind: notHeading, top: it.Top(),
		sp: Splice{Start: anchor, New: sep + text + trail}}
	p.newStart = anchor + len(sep)
	p.newEnd = p.newStart + len(text)
	return d.apply(p)
}

// Append adds one new block at the end of the book, at top level, after a
// blank line. It is how an empty book (no items) gets its first item, which
// may be a heading since there is no hierarchy yet to break; in a book with
// items the new block must not be a heading, like any insert.
func (d *Document) Append(markdown string) (EditResult, error) {
	if err := d.editable(); err != nil {
		return EditResult{}, err
	}
	end := d.text.Len()
	le := d.lineEnding(end)
	text, err := compose(markdown, Shape{}, 0, le)
	if err != nil {
		return EditResult{}, err
	}
	lead := ""
	if n := d.text.Len(); n > 0 && !(n == len(utf8BOM) && bytes.Equal(d.text.Bytes(), utf8BOM)) {
		if d.text.At(n-1) != '\n' {
			lead = le
		}
		if !d.lastLineBlank() {
			lead += le // keep the new block apart from the last line
		}
	}
	target, kind, top := &Item{}, notHeading, 0
	if n := d.items.n; n > 0 {
		target = d.at(n - 1)
		top = target.Top()
	} else {
		kind = nil
	}
	p := plan{op: OpAppend, target: target, remove: -1, insert: d.items.n, kind: kind, top: top,
		sp: Splice{Start: end, New: lead + text + le}}
	p.newStart = end + len(lead)
	p.newEnd = p.newStart + len(text)
	return d.apply(p)
}

// utf8BOM is the UTF-8 byte order mark; a source may start with it (it is
// not part of any item).
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// lastLineBlank reports whether the source's last line (terminated or not)
// is blank.
func (d *Document) lastLineBlank() bool {
	end := d.text.Len()
	if end > 0 && d.text.At(end-1) == '\n' {
		end--
	}
	start := d.text.LastIndexByte(end, '\n') + 1
	return blankish(d.text.Slice(start, end))
}

// lastInListItem returns the last item inside the list item that it opens.
func (d *Document) lastInListItem(it *Item) *Item {
	li := it.innermost(InListItem)
	last := it
	if li == 0 {
		return last
	}
	for next := range d.walk(it.Index()+1, d.items.n) {
		if !next.inContainer(li) {
			break
		}
		last = next
	}
	return last
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Delete removes the item and the blank-line separator that belonged to it.
// Headings cannot be deleted; a list item holding nested items or further
// blocks must be emptied first.
func (d *Document) Delete(ptr string) (EditResult, error) {
	if err := d.editable(); err != nil {
		return EditResult{}, err
	}
	it, err := d.Resolve(ptr)
	if err != nil {
		return EditResult{}, err
	}
	if it.Kind == Heading {
		return EditResult{}, fmt.Errorf("%w: %s is a heading; deleting it would change the book's structure. Replace its text instead, or delete the items under it one by one",
			ErrHeading, it.Pointer())
	}
	if it.Kind == ListItem {
		if last := d.lastInListItem(it); last != it {
			return EditResult{}, fmt.Errorf("%w: the list item %s also holds %s; delete those first (from the last one), or replace this item's text",
				ErrStructure, it.Pointer(), describeRange(d.span(it.Index()+1, last.Index()+1)))
		}
	}
	start, end := d.deleteRange(it)
	p := plan{op: OpDelete, target: it, remove: it.Index(), insert: -1, top: it.Top(),
		sp: Splice{Start: start, Old: string(d.text.Slice(start, end))}}
	return d.apply(p)
}

func describeRange(items []*Item) string {
	if len(items) == 1 {
		return items[0].Pointer().String()
	}
	return fmt.Sprintf("%d items (%s … %s)", len(items), items[0].Pointer(), items[len(items)-1].Pointer())
}
