package markdown

import (
	"bytes"
	"html"
	"strings"
	"unsafe"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// text returns the plain text of a leaf block whose Markdown is
// src[start:end]: inline markup removed, link and image texts kept, code
// kept verbatim, soft line breaks as spaces.
func (b *builder) text(n ast.Node, start, end int) string {
	if s, ok := b.plainText(n); ok && plainTexts {
		return s
	}
	var w strings.Builder
	w.Grow(end - start) // room for about the text (its Markdown's length): built without growing
	b.blockText(&w, n)
	s := w.String()
	fits := w.Cap()-w.Len() <= w.Len()/8
	if strings.IndexByte(s, '&') >= 0 {
		s, fits = html.UnescapeString(s), true // a string of its own length
	}
	return b.keep(s, start, end, fits)
}

// keep returns the text to keep: a piece of the item's Markdown when the
// text is one and the builder shares the source (a plain paragraph or a
// heading's title costs no memory of its own), else s when it fits the
// memory it holds (little spare room), else a copy of exactly its length.
func (b *builder) keep(s string, start, end int, fits bool) string {
	if s == "" {
		return ""
	}
	if b.shared {
		md := b.src[start:end]
		if k := strings.Index(unsafe.String(unsafe.SliceData(md), len(md)), s); k >= 0 {
			return unsafe.String(&md[k], len(s))
		}
	}
	if fits {
		return s
	}
	return strings.Clone(s)
}

// plainTexts turns plainText on (a variable for the tests).
var plainTexts = true

// plainText returns the text of a paragraph or heading that is plain
// text on one line — the most common block of a book — without building
// it: what blockText would write, when n's children are text without
// line breaks whose segments follow each other and hold no backslash
// escape or entity, is the bytes from the first to the last, a piece of
// the source (kept as keep does).
func (b *builder) plainText(n ast.Node) (string, bool) {
	switch n.Kind() {
	case ast.KindParagraph, ast.KindHeading, ast.KindTextBlock:
	default:
		return "", false
	}
	first, ok := n.FirstChild().(*ast.Text)
	if !ok {
		return "", false
	}
	from, to := first.Segment.Start, first.Segment.Start
	for c := ast.Node(first); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok || t.SoftLineBreak() || t.HardLineBreak() || t.Segment.Padding != 0 || t.Segment.Start != to {
			return "", false
		}
		to = t.Segment.Stop
	}
	v := b.src[from:to]
	if len(v) == 0 || bytes.IndexByte(v, '\\') >= 0 || bytes.IndexByte(v, '&') >= 0 {
		return "", false
	}
	if b.shared {
		return unsafe.String(&v[0], len(v)), true
	}
	return string(v), true
}

func (b *builder) blockText(w *strings.Builder, n ast.Node) {
	switch n.Kind() {
	case ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindHTMLBlock:
		b.rawLines(w, n)
	case east.KindTable:
		for r := n.FirstChild(); r != nil; r = r.NextSibling() {
			if r != n.FirstChild() {
				w.WriteByte('\n')
			}
			for c := r.FirstChild(); c != nil; c = c.NextSibling() {
				if c != r.FirstChild() {
					w.WriteString(" | ")
				}
				b.inline(w, c)
			}
		}
	case east.KindFootnote, ast.KindList, ast.KindListItem, ast.KindBlockquote:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if w.Len() > 0 {
				w.WriteByte('\n')
			}
			b.blockText(w, c)
		}
	case ast.KindLinkReferenceDefinition, ast.KindThematicBreak:
	default:
		b.inline(w, n)
	}
}

func (b *builder) rawLines(w *strings.Builder, n ast.Node) {
	l := n.Lines()
	for i := 0; i < l.Len(); i++ {
		seg := l.At(i)
		w.Write(seg.Value(b.src))
	}
	if h, ok := n.(*ast.HTMLBlock); ok && h.HasClosure() {
		w.Write(h.ClosureLine.Value(b.src))
	}
	s := strings.TrimRight(w.String(), "\r\n")
	w.Reset()
	w.WriteString(s)
}

// inline writes the text of n's inline children.
func (b *builder) inline(w *strings.Builder, n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.CodeSpan:
			for g := t.FirstChild(); g != nil; g = g.NextSibling() {
				if s, ok := g.(*ast.Text); ok {
					w.Write(s.Segment.Value(b.src))
				}
			}
		case *ast.Text:
			v := t.Segment.Value(b.src)
			if t.SoftLineBreak() || t.HardLineBreak() {
				v = bytes.TrimRight(v, " \t\r")
				if t.HardLineBreak() {
					v = bytes.TrimSuffix(v, []byte("\\"))
				}
			}
			writeUnescaped(w, v)
			switch {
			case t.HardLineBreak():
				w.WriteByte('\n')
			case t.SoftLineBreak():
				w.WriteByte(' ')
			}
		case *ast.String:
			w.Write(t.Value)
		case *ast.AutoLink:
			w.Write(t.Label(b.src))
		case *ast.RawHTML, *east.FootnoteLink:
		default:
			b.inline(w, c)
		}
	}
}

// writeUnescaped writes v with backslash escapes of ASCII punctuation
// resolved (`\!` → `!`), as CommonMark reads them outside code.
func writeUnescaped(w *strings.Builder, v []byte) {
	for {
		i := bytes.IndexByte(v, '\\')
		if i < 0 || i+1 >= len(v) {
			w.Write(v)
			return
		}
		w.Write(v[:i])
		if c := v[i+1]; c < 0x80 && isASCIIPunct(c) {
			w.WriteByte(c)
		} else {
			w.Write(v[i : i+2])
		}
		v = v[i+2:]
	}
}

func isASCIIPunct(c byte) bool {
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~')
}
