// Package markdown parses Markdown (CommonMark with GFM tables,
// strikethrough and footnotes, plus leading YAML/TOML front matter) into a
// document.Document with exact byte spans, and re-parses regions for the
// document's edit validation. Parsing is total: any byte string parses,
// invalid UTF-8 is kept as bytes, and writing an unedited document gives
// back the input byte for byte (the source is never re-rendered: edits are
// spliced into it).
//
// Link reference definitions are not items: their bytes stay between the
// items around them and no edit touches them.
package markdown

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"

	"github.com/aitexteditor/aite/internal/document"
)

// Parser implements document.Parser with goldmark. It remembers the link
// reference definitions of the whole document, so that a region parsed
// alone resolves reference links exactly as the full parse did (edits never
// add or remove definitions: a definition is not an item).
type Parser struct {
	refs []parser.Reference
}

// Parse parses a whole source into a document: a big one in parts, in
// parallel (parts.go), with exactly the result of parsing it whole. The
// document keeps src, and item texts may share its bytes: the caller must
// never change src afterwards.
func Parse(src []byte) *document.Document {
	d, _ := ParseEach(src, func([]byte, int, []*document.Item) struct{} { return struct{}{} })
	return d
}

// ParseEach is Parse that also runs each on every part of src, in the
// worker that parsed it while the part is fresh in its cache, and returns
// what it gave, in order: the parts cover src exactly, one after the
// other, and part holds the bytes src[start:start+len(part)] with the
// items that lie in them (in document order; their spans are offsets in
// src, their IDs and labels not yet given). Work that goes item by item
// or byte by byte (hashing the items, checking the bytes) is so shared by
// every processor instead of waiting for the whole parse. A book parsed
// whole (see parts.go) is cut into parts between its items for each.
func ParseEach[T any](src []byte, each func(part []byte, start int, items []*document.Item) T) (*document.Document, []T) {
	p := &Parser{}
	reg, out, ok := parseParts(src, each)
	if !ok {
		reg = p.parseRegion(src, 0, 0, len(src), true)
		out = eachPart(src, reg.Items, each)
	}
	return document.New(src, reg, p), out
}

// bom is the UTF-8 byte order mark. A source that starts with it keeps it,
// outside every item: the first block starts after it.
var bom = []byte{0xEF, 0xBB, 0xBF}

// textStart is where the text of src starts: after the byte order mark.
func textStart(src []byte) int {
	if bytes.HasPrefix(src, bom) {
		return len(bom)
	}
	return 0
}

// ParseRegion parses src[start:end] as a standalone Markdown text and
// returns items and top-level spans in absolute offsets. Front matter is
// recognised only at offset 0 (after a byte order mark, if any).
func (p *Parser) ParseRegion(src []byte, start, end int) document.Region {
	return p.parseRegion(src, 0, start, end, false)
}

// ParseWindow is ParseRegion of a source of which win holds the bytes
// from offset base on (document.Parser).
func (p *Parser) ParseWindow(win []byte, base, start, end int) document.Region {
	return p.parseRegion(win, base, start, end, false)
}

// parseRegion is ParseWindow; with shared, texts that are pieces of src
// refer to it instead of copying it (see builder.shared).
func (p *Parser) parseRegion(src []byte, off, start, end int, shared bool) (reg document.Region) {
	base := start
	if off == 0 && (start == 0 || start == textStart(src)) {
		front := p.frontMatterOnly(src, end)
		reg, base = front.Region, front.base
	}
	reg.Src, reg.Base = src, off
	// Parse through the final line ending, exactly as the full parse saw
	// the line (goldmark treats a last line without one slightly
	// differently); spans never include it.
	stop := end
	if stop-off < len(src) && src[stop-off] == '\r' {
		stop++
	}
	if stop-off < len(src) && src[stop-off] == '\n' {
		stop++
	}
	items, tops, refs := parseBlocks(src[base-off:stop-off], base, p.refs, shared)
	if p.refs == nil {
		p.refs = refs
	}
	for _, it := range items {
		it.SetTop(it.Top() + len(reg.Tops))
	}
	reg.Items = append(reg.Items, items...)
	reg.Tops = append(reg.Tops, tops...)
	return reg
}

// frontRegion is the front matter of a source (if any) as a region, and
// where the text after it starts.
type frontRegion struct {
	document.Region
	base int
}

// frontMatterOnly returns the front matter item of src (within end), after
// a byte order mark.
func (p *Parser) frontMatterOnly(src []byte, end int) frontRegion {
	out := frontRegion{base: 0}
	if bytes.HasPrefix(src[:end], bom) {
		out.base = len(bom)
	}
	if fm, text := frontMatter(src[out.base:end]); fm > 0 {
		it := &document.Item{Kind: document.FrontMatter, Text: text}
		it.SetSpan(out.base, out.base+fm)
		out.Items = append(out.Items, it)
		out.Tops = append(out.Tops, document.Span{Start: out.base, End: out.base + fm})
		out.base += fm
	}
	return out
}

// parseBlocks runs goldmark; should it ever panic, the text falls back to
// one paragraph per run of non-blank lines, so parsing stays total.
func parseBlocks(src []byte, base int, known []parser.Reference, shared bool) ([]*document.Item, []document.Span, []parser.Reference) {
	b, _, ok := buildBlocks(src, base, known, shared)
	if !ok {
		items, tops := fallback(src, base)
		return items, tops, known
	}
	return b.items, b.tops, b.refs
}

// buildBlocks parses src with goldmark and builds its items; ok is false
// when goldmark panicked.
func buildBlocks(src []byte, base int, known []parser.Reference, shared bool) (b *builder, doc ast.Node, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	doc, tr, refs := parseAST(src, known)
	b = &builder{src: src, base: base, tr: tr, refs: refs, shared: shared}
	b.build(doc)
	return b, doc, true
}

func fallback(src []byte, base int) ([]*document.Item, []document.Span) {
	var items []*document.Item
	var tops []document.Span
	for i := 0; i < len(src); {
		e := lineEnd(src, i)
		if len(bytes.TrimSpace(src[i:e])) > 0 {
			s := i
			for e < len(src) {
				n := nextLine(src, e)
				ne := lineEnd(src, n)
				if n >= len(src) || len(bytes.TrimSpace(src[n:ne])) == 0 {
					break
				}
				e = ne
			}
			tops = append(tops, document.Span{Start: s + base, End: e + base})
			it := &document.Item{Kind: document.Paragraph, Text: string(src[s:e])}
			it.SetSpan(s+base, e+base)
			it.SetTop(len(tops) - 1)
			items = append(items, it)
		}
		i = nextLine(src, e)
	}
	return items, tops
}

// nextLine returns the start of the line after the one ending at e.
func nextLine(src []byte, e int) int {
	for e < len(src) && src[e] != '\n' {
		e++
	}
	return e + 1
}

// frontMatter returns the end of a leading `---` (YAML) or `+++` (TOML)
// block (before the closing line's line ending) and its inner text, or 0.
func frontMatter(src []byte) (int, string) {
	first := lineEnd(src, 0)
	delim := string(bytes.TrimRight(src[:first], " \t"))
	if delim != "---" && delim != "+++" {
		return 0, ""
	}
	for i := nextLine(src, first); i < len(src); i = nextLine(src, lineEnd(src, i)) {
		e := lineEnd(src, i)
		l := string(bytes.TrimRight(src[i:e], " \t"))
		if l == delim || (delim == "---" && l == "...") {
			inner := ""
			if s := nextLine(src, first); s < i {
				inner = string(bytes.TrimRight(src[s:i], "\r\n"))
			}
			return e, inner
		}
	}
	return 0, ""
}

// MarshalBinary writes down the link reference definitions the parser
// knows, so that a parser rebuilt by UnmarshalBinary re-parses regions of
// the same document exactly as this one does (a document brought back from
// its encoding without parsing needs it for edits).
func (p *Parser) MarshalBinary() ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(p.refs)))
	for _, r := range p.refs {
		for _, f := range [][]byte{r.Label(), r.Destination(), r.Title()} {
			b = binary.AppendUvarint(b, uint64(len(f)))
			b = append(b, f...)
		}
	}
	return b, nil
}

// UnmarshalBinary restores what MarshalBinary wrote.
func (p *Parser) UnmarshalBinary(b []byte) error {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return errors.New("markdown: damaged parser state")
	}
	b = b[k:]
	var refs []parser.Reference
	for range n {
		var f [3][]byte
		for i := range f {
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return errors.New("markdown: damaged parser state")
			}
			f[i] = bytes.Clone(b[k : k+int(l)])
			b = b[k+int(l):]
		}
		refs = append(refs, parser.NewReference(f[0], f[1], f[2]))
	}
	if len(b) != 0 {
		return errors.New("markdown: damaged parser state")
	}
	p.refs = refs
	return nil
}
