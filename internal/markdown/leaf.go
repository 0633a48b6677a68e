package markdown

import (
	"bytes"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// leaf emits the item of a leaf block (a footnote definition counts as one).
func (b *builder) leaf(n ast.Node) {
	kind := b.kindOf(n)
	start, end, body := b.leafSpan(n)
	start = lineStart(b.src, start)
	if b.pending >= 0 {
		start = min(start, b.pending)
		b.pending = -1
	}
	end = lineEnd(b.src, end)
	it := b.item(kind, start, end, b.text(n, start, end))
	body = max(start, min(body, end))
	it.Shape.Prefix = string(b.src[start:body])
	switch h := n.(type) {
	case *ast.Heading:
		it.Level = h.Level
		b.headingShape(h, it)
	case *ast.Paragraph, *ast.TextBlock:
		if kind == document.ListItem {
			it.Shape.Tight = isTight(n.Parent())
		}
	}
}

// leafSpan returns the first and last offsets of a leaf and where the block
// itself (not its container prefix) starts.
func (b *builder) leafSpan(n ast.Node) (start, end, body int) {
	switch n.Kind() {
	case ast.KindParagraph, ast.KindTextBlock:
		l := n.Lines()
		if l.Len() > 0 {
			return l.At(0).Start, l.At(l.Len() - 1).Start, l.At(0).Start
		}
	case ast.KindHeading:
		return b.headingSpan(n.(*ast.Heading))
	case east.KindTable:
		if start, end, ok := b.tableSpan(n); ok {
			return start, end, start
		}
	}
	start, end = b.extent(n)
	body = start
	if p := b.posOf(n); p >= 0 {
		body = p
	}
	return start, end, body
}

// tableSpan returns the first and last offsets of a table: its header row
// to its last row, or to its delimiter row when it has no body. The
// delimiter row is no node (it is the line after the header), so neither
// the rows' nor the cells' segments cover it.
func (b *builder) tableSpan(n ast.Node) (start, end int, ok bool) {
	first, last := n.FirstChild(), n.LastChild()
	if first == nil {
		return 0, 0, false
	}
	delim := min(lineEnd(b.src, first.Pos())+1, len(b.src))
	if delim < len(b.src) && b.src[delim] == '\n' {
		delim++
	}
	return first.Pos(), max(last.Pos(), min(delim, len(b.src))), true
}

func (b *builder) headingSpan(h *ast.Heading) (start, end, body int) {
	t := b.tr[h]
	if t != nil && t.setext {
		l := h.Lines()
		if l.Len() > 0 {
			return l.At(0).Start, t.open, l.At(0).Start
		}
		return t.open, t.open, t.open
	}
	p := b.posOf(h)
	if p < 0 {
		p = b.openOf(h)
	}
	return p, p, p
}

func (b *builder) headingShape(h *ast.Heading, it *document.Item) {
	t := b.tr[h]
	if t != nil && t.setext {
		u := string(b.src[t.open:lineEnd(b.src, t.open)])
		it.Shape.Underline = strings.TrimLeft(u, " \t")
		return
	}
	p := b.posOf(h)
	if p < 0 {
		return
	}
	if l := h.Lines(); l.Len() > 0 && l.At(0).Start > p && l.At(0).Start <= lineEnd(b.src, p) {
		it.Shape.HeadMarker = string(b.src[p:l.At(0).Start])
		return
	}
	it.Shape.HeadMarker = strings.Repeat("#", h.Level) + " "
}

// lineStart returns the offset of the start of the line holding off.
func lineStart(src []byte, off int) int {
	off = min(max(off, 0), len(src))
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineEnd returns the offset of the end of the line holding off, before its
// line ending ("\n" or "\r\n").
func lineEnd(src []byte, off int) int {
	off = min(max(off, 0), len(src))
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		off += i
	} else {
		off = len(src)
	}
	if off > 0 && off <= len(src) && off < len(src) && src[off] == '\n' && src[off-1] == '\r' {
		return off - 1
	}
	if off == len(src) && off > 0 && src[off-1] == '\r' {
		return off - 1
	}
	return off
}
