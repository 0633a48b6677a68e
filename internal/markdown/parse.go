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

// Parse parses a whole source into a document.
func Parse(src []byte) *document.Document {
	p := &Parser{}
	return document.New(src, p.ParseRegion(src, 0, len(src)), p)
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
func (p *Parser) ParseRegion(src []byte, start, end int) (reg document.Region) {
	reg.Src = src
	base := start
	if start == 0 && bytes.HasPrefix(src[:end], bom) {
		base = len(bom)
	}
	if base == textStart(src) {
		if fm, text := frontMatter(src[base:end]); fm > 0 {
			it := &document.Item{Kind: document.FrontMatter, Start: base, End: base + fm, Text: text}
			reg.Items = append(reg.Items, it)
			reg.Tops = append(reg.Tops, document.Span{Start: base, End: base + fm})
			base += fm
		}
	}
	// Parse through the final line ending, exactly as the full parse saw
	// the line (goldmark treats a last line without one slightly
	// differently); spans never include it.
	stop := end
	if stop < len(src) && src[stop] == '\r' {
		stop++
	}
	if stop < len(src) && src[stop] == '\n' {
		stop++
	}
	items, tops, refs := parseBlocks(src[base:stop], base, p.refs)
	if p.refs == nil {
		p.refs = refs
	}
	for _, it := range items {
		it.Top += len(reg.Tops)
	}
	reg.Items = append(reg.Items, items...)
	reg.Tops = append(reg.Tops, tops...)
	return reg
}

// parseBlocks runs goldmark; should it ever panic, the text falls back to
// one paragraph per run of non-blank lines, so parsing stays total.
func parseBlocks(src []byte, base int, known []parser.Reference) (items []*document.Item, tops []document.Span, refs []parser.Reference) {
	defer func() {
		if r := recover(); r != nil {
			items, tops = fallback(src, base)
			refs = known
		}
	}()
	doc, tr, refs := parseAST(src, known)
	b := &builder{src: src, base: base, tr: tr}
	b.build(doc)
	return b.items, b.tops, refs
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
			items = append(items, &document.Item{Kind: document.Paragraph, Start: s + base, End: e + base,
				Text: string(src[s:e]), Top: len(tops) - 1})
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
