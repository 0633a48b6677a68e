package markdown

import (
	"github.com/aitexteditor/aite/internal/document"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
)

// builder turns a goldmark tree into document items. Offsets in the tree are
// relative to src (the parsed slice); base is added to every output offset.
type builder struct {
	src     []byte
	base    int
	tr      tracker
	items   []*document.Item
	slab    []document.Item // where the next items are made: together, not one allocation each
	tops    []document.Span
	conts   []document.Container
	quote   int
	nextID  int
	pending int // line start of containers opened before their first leaf; -1 when none
	top     int
	refs    []parser.Reference // the link reference definitions in effect
	// shared: a text that is a piece of src refers to it (the whole book's
	// first parse: the document keeps src anyway). Edits re-parse regions
	// of each new source without it, so no old source stays alive for the
	// sake of a few texts.
	shared bool
}

func (b *builder) build(doc ast.Node) {
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		b.top = len(b.tops)
		b.pending = -1
		first := len(b.items)
		b.block(n)
		start, end := b.extent(n)
		start, end = lineStart(b.src, start), lineEnd(b.src, end)
		if k := n.Kind(); len(b.items) > first && k != ast.KindList && k != ast.KindBlockquote {
			start, end = len(b.src), 0 // a leaf: its item's span is exact
		}
		for _, it := range b.items[first:] {
			start, end = min(start, it.Start()-b.base), max(end, it.End()-b.base)
		}
		b.tops = append(b.tops, document.Span{Start: start + b.base, End: end + b.base})
	}
	b.repair()
}

func (b *builder) block(n ast.Node) {
	switch n.Kind() {
	case ast.KindList:
		b.container(n, document.InList)
	case ast.KindListItem:
		b.listItem(n)
	case ast.KindBlockquote:
		b.quote++
		b.container(n, document.InQuote)
		b.quote--
	case ast.KindLinkReferenceDefinition:
		// Not an item: its bytes stay between items.
	default:
		b.leaf(n)
	}
}

func (b *builder) container(n ast.Node, kind document.ContainerKind) {
	b.nextID++
	b.conts = append(b.conts, document.Container{Kind: kind, ID: b.nextID})
	if b.pending < 0 {
		b.pending = lineStart(b.src, b.openOf(n))
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.block(c)
	}
	b.conts = b.conts[:len(b.conts)-1]
}

func (b *builder) listItem(n ast.Node) {
	before := len(b.items)
	b.container(n, document.InListItem)
	if len(b.items) > before {
		return
	}
	// A list item with no block of its own is still addressable.
	b.nextID++
	b.conts = append(b.conts, document.Container{Kind: document.InListItem, ID: b.nextID})
	start, end := b.extent(n)
	start = lineStart(b.src, start)
	if b.pending >= 0 {
		start = min(start, b.pending)
	}
	b.pending = -1
	it := b.item(document.ListItem, start, lineEnd(b.src, end), "")
	it.Shape.Prefix = string(b.src[start:lineEnd(b.src, end)])
	it.Shape.Tight = isTight(n)
	b.conts = b.conts[:len(b.conts)-1]
}

// item appends an item with the current containers.
func (b *builder) item(kind document.Kind, start, end int, txt string) *document.Item {
	if len(b.slab) == 0 {
		b.slab = make([]document.Item, 256)
	}
	it := &b.slab[0]
	b.slab = b.slab[1:]
	*it = document.Item{Kind: kind, Text: txt, QuoteDepth: b.quote}
	it.SetSpan(start+b.base, end+b.base)
	it.SetTop(b.top)
	if len(b.conts) > 0 {
		it.Containers = append([]document.Container(nil), b.conts...)
	}
	b.items = append(b.items, it)
	return it
}

func (b *builder) openOf(n ast.Node) int {
	if t := b.tr[n]; t != nil {
		return t.open
	}
	if p := n.Pos(); p >= 0 {
		return p
	}
	if l := n.Lines(); l != nil && l.Len() > 0 {
		return l.At(0).Start
	}
	return 0
}

// posOf returns where block n starts (its first non-space character), or
// -1 when goldmark did not say.
func (b *builder) posOf(n ast.Node) int {
	if t := b.tr[n]; t != nil {
		return t.pos
	}
	return n.Pos()
}

// extent returns the first and the last offset a block's lines cover.
func (b *builder) extent(n ast.Node) (int, int) {
	if k := n.Kind(); k == ast.KindParagraph || k == ast.KindTextBlock {
		// The lines are authoritative: link reference definitions and
		// table rows may have been taken out of the paragraph.
		if l := n.Lines(); l.Len() > 0 {
			return l.At(0).Start, l.At(l.Len() - 1).Start
		}
	}
	if n.Kind() == east.KindTable {
		// A table inside a block we take whole (a footnote definition)
		// covers its delimiter row, which no node's segments do.
		if start, end, ok := b.tableSpan(n); ok {
			return start, end
		}
	}
	start := b.openOf(n)
	end := start
	if t := b.tr[n]; t != nil {
		end = max(end, t.last)
	}
	if n.Type() == ast.TypeBlock {
		if l := n.Lines(); l != nil && l.Len() > 0 {
			start = min(start, l.At(0).Start)
			end = max(end, l.At(l.Len()-1).Start)
		}
	}
	if h, ok := n.(*ast.HTMLBlock); ok && h.HasClosure() {
		end = max(end, h.ClosureLine.Start)
	}
	for c := n.FirstChild(); c != nil && n.Type() == ast.TypeBlock; c = c.NextSibling() {
		if c.Type() != ast.TypeBlock {
			break
		}
		s, e := b.extent(c)
		start, end = min(start, s), max(end, e)
	}
	return start, end
}

func isTight(li ast.Node) bool {
	if l, ok := li.Parent().(*ast.List); ok {
		return l.IsTight
	}
	return true
}

// kindOf classifies a leaf block.
func (b *builder) kindOf(n ast.Node) document.Kind {
	switch n.Kind() {
	case ast.KindParagraph, ast.KindTextBlock:
		if p := n.Parent(); p != nil && p.Kind() == ast.KindListItem && p.FirstChild() == n {
			return document.ListItem
		}
		if b.quote > 0 {
			return document.Quote
		}
		return document.Paragraph
	case ast.KindHeading:
		return document.Heading
	case ast.KindFencedCodeBlock, ast.KindCodeBlock:
		return document.Code
	case ast.KindThematicBreak:
		return document.ThematicBreak
	case ast.KindHTMLBlock:
		return document.HTML
	case east.KindTable:
		return document.Table
	case east.KindFootnote:
		return document.FootnoteDef
	}
	if b.quote > 0 {
		return document.Quote
	}
	return document.Paragraph
}
