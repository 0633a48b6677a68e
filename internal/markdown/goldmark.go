package markdown

import (
	"fmt"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// track records, for one block node, where its parser opened it and the
// furthest line it consumed. goldmark keeps only content segments, so the
// closing fence of a code block, the closure line of an HTML block and the
// underline of a setext heading are known only from here.
type track struct {
	open, last int
	// pos is where the block's first non-space character is. goldmark's
	// Pos counts the columns left of a tab that a container took part of
	// (the padding) as bytes, so it can point further right, even past the
	// end of a short line (`\t#` under a list item).
	pos    int
	setext bool
	// closed says the block's own parser closed it (a fenced code block
	// at its closing fence), rather than the end of the text or another
	// line.
	closed bool
}

var trackKey = parser.NewContextKey()

type tracker map[ast.Node]*track

func trackerOf(pc parser.Context) tracker { return pc.Get(trackKey).(tracker) }

// tracked wraps a goldmark block parser and records positions.
type tracked struct {
	parser.BlockParser
	setext bool
	// inPlace skips the wrapped Close: goldmark's footnote parser moves
	// every definition into one list at the first one's place, which would
	// reorder the book.
	inPlace bool
}

func (w *tracked) Close(n ast.Node, reader text.Reader, pc parser.Context) {
	if !w.inPlace {
		w.BlockParser.Close(n, reader, pc)
	}
}

func (w *tracked) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	_, seg := reader.Position()
	n, st := w.BlockParser.Open(parent, reader, pc)
	if n != nil {
		pos := seg.Start + max(pc.BlockOffset()-seg.Padding, 0)
		trackerOf(pc)[n] = &track{open: seg.Start, last: seg.Start, pos: pos, setext: w.setext}
	}
	return n, st
}

func (w *tracked) Continue(n ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, seg := reader.Position()
	st := w.BlockParser.Continue(n, reader, pc)
	line2, seg2 := reader.Position()
	t := trackerOf(pc)[n]
	if st&parser.Continue != 0 || line2 != line || seg2.Start != seg.Start {
		if t != nil && !isBlankRest(reader.Source(), seg.Start) {
			t.last = max(t.last, seg.Start)
		}
	}
	if t != nil && st&parser.Close != 0 {
		t.closed = true
	}
	return st
}

// isBlankRest reports whether the line from off on holds only whitespace.
func isBlankRest(src []byte, off int) bool {
	for i := off; i < len(src) && src[i] != '\n'; i++ {
		if c := src[i]; c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

var gm = sync.OnceValue(func() parser.Parser {
	var bps []util.PrioritizedValue
	for _, v := range parser.DefaultBlockParsers() {
		bp := v.Value.(parser.BlockParser)
		setext := strings.Contains(strings.ToLower(fmt.Sprintf("%T", bp)), "setext")
		bps = append(bps, util.Prioritized(&tracked{BlockParser: bp, setext: setext}, v.Priority))
	}
	bps = append(bps, util.Prioritized(&tracked{BlockParser: extension.NewFootnoteBlockParser(), inPlace: true}, 999))
	inl := append(parser.DefaultInlineParsers(),
		util.Prioritized(extension.NewFootnoteParser(), 101),
		util.Prioritized(extension.NewStrikethroughParser(), 500))
	pts := append(parser.DefaultParagraphTransformers(),
		util.Prioritized(extension.NewTableParagraphTransformer(), 200))
	return parser.NewParser(parser.WithBlockParsers(bps...), parser.WithInlineParsers(inl...),
		parser.WithParagraphTransformers(pts...))
})

// parseAST runs goldmark over src with the given link reference
// definitions known in advance, and returns the tree, the positions and the
// definitions in effect.
func parseAST(src []byte, refs []parser.Reference) (ast.Node, tracker, []parser.Reference) {
	pc := parser.NewContext()
	for _, r := range refs {
		pc.AddReference(r)
	}
	tr := make(tracker, len(src)/512) // about a block per paragraph: grown less often
	pc.Set(trackKey, tr)
	doc := gm().Parse(text.NewReader(src), parser.WithContext(pc))
	return doc, tr, pc.References()
}
