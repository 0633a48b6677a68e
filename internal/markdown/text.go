package markdown

import (
	"bytes"
	"html"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// text returns the plain text of a leaf block: inline markup removed, link
// and image texts kept, code kept verbatim, soft line breaks as spaces.
func (b *builder) text(n ast.Node) string {
	var w strings.Builder
	b.blockText(&w, n)
	s := w.String()
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	return s
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
