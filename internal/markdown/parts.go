package markdown

import (
	"bytes"
	"runtime"
	"sync"

	"github.com/yuin/goldmark/ast"

	"github.com/aitexteditor/aite/internal/document"
)

// A big book is parsed in parts, in parallel: it is cut before ATX
// headings that start a line after a blank line (`\n\n# `), where every
// block the book could have open ends, except a fenced code block or an
// HTML block that runs to an end marker (types 1–5). Each part is parsed
// on its own; a part whose last block is one of those, left open, means
// the cut was inside it, and then the book is parsed whole instead. So is
// a book with link reference or footnote definitions (`]:`), which reach
// across parts. The result is exactly that of parsing the book whole (the
// tests compare them on the shared books, the CommonMark examples and
// fuzzed texts).

// partSize is the size a part is cut at, at the first place after it, and
// minParallel the least source size worth parsing in parts (variables
// only so that tests can cut small texts).
var (
	partSize    = 256 << 10
	minParallel = 2 * partSize
)

// cuts returns where the parts of src start, after the first (at 0): line
// starts of ATX headings after a blank line, about partSize apart.
func cuts(src []byte) []int {
	var out []int
	last := 0
	for i := partSize; i < len(src); {
		j := bytes.Index(src[i:], []byte("\n#"))
		if j < 0 {
			break
		}
		at := i + j + 1
		if blankBefore(src, at-1) && atxOpener(src[at:]) && at-last >= partSize/2 {
			out = append(out, at)
			last = at
			i = at + partSize
			continue
		}
		i = at
	}
	return out
}

// blankBefore reports whether the line ending at src[nl] ('\n') is
// empty (or a lone '\r').
func blankBefore(src []byte, nl int) bool {
	return nl >= 1 && src[nl-1] == '\n' || nl >= 2 && src[nl-1] == '\r' && src[nl-2] == '\n'
}

// atxOpener reports whether b starts with an ATX heading opener: 1 to 6
// `#`, then a space, a tab, a line end or the end.
func atxOpener(b []byte) bool {
	n := 0
	for n < len(b) && b[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(b) || b[n] == ' ' || b[n] == '\t' || b[n] == '\r' || b[n] == '\n')
}

// part is one parsed part of a book.
type part struct {
	items []*document.Item
	tops  []document.Span
	conts int  // container IDs used
	open  bool // its last block was left open at the cut
}

// parseParts parses src in parts and joins them, with what each gave for
// each part (see ParseEach), or returns false when the book must be
// parsed whole.
func parseParts[T any](src []byte, each func([]byte, int, []*document.Item) T) (document.Region, []T, bool) {
	if len(src) < minParallel || bytes.Contains(src, []byte("]:")) {
		return document.Region{}, nil, false
	}
	starts := append([]int{0}, cuts(src)...)
	if len(starts) < 2 {
		return document.Region{}, nil, false
	}
	parts := make([]part, len(starts))
	out := make([]T, len(starts))
	inParallel(len(parts), func(k int) {
		end := len(src)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		parts[k] = parsePart(src, starts[k], end)
		if !parts[k].open {
			out[k] = each(src[starts[k]:end], starts[k], parts[k].items)
		}
	})
	reg, ok := join(src, parts)
	return reg, out, ok
}

// inParallel runs f(0) ... f(n-1) on every processor, each k once.
func inParallel(n int, f func(k int)) {
	var wg sync.WaitGroup
	next := make(chan int, n)
	for k := range n {
		next <- k
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for k := range next {
				f(k)
			}
		})
	}
	wg.Wait()
}

// eachPart runs each on the parts of a book parsed whole: as many as
// there are processors for a big book, cut between its items.
func eachPart[T any](src []byte, items []*document.Item, each func([]byte, int, []*document.Item) T) []T {
	n := 1
	if len(src) >= minParallel {
		n = runtime.GOMAXPROCS(0)
	}
	// Part k starts at the first item starting at or after k/n of src
	// (the first part at 0, the bytes before the first item included).
	starts, first := []int{0}, []int{0}
	for k, i := 1, 0; k < n; k++ {
		at := k * len(src) / n
		for i < len(items) && items[i].Start() < at {
			i++
		}
		if i == len(items) {
			break
		}
		if s := items[i].Start(); s > starts[len(starts)-1] {
			starts, first = append(starts, s), append(first, i)
		}
	}
	out := make([]T, len(starts))
	inParallel(len(starts), func(k int) {
		end, last := len(src), len(items)
		if k+1 < len(starts) {
			end, last = starts[k+1], first[k+1]
		}
		out[k] = each(src[starts[k]:end], starts[k], items[first[k]:last])
	})
	return out
}

// parsePart parses src[start:end] on its own.
func parsePart(src []byte, start, end int) (p part) {
	base := start
	var front []*document.Item
	var frontTops []document.Span
	if start == 0 {
		reg := (&Parser{}).frontMatterOnly(src, end)
		front, frontTops, base = reg.Items, reg.Tops, reg.base
	}
	b, doc, ok := buildBlocks(src[base:end], base, nil, true)
	if !ok {
		return part{open: true} // goldmark panicked: parse the book whole
	}
	for _, it := range b.items {
		it.SetTop(it.Top() + len(frontTops))
	}
	p.items = append(front, b.items...)
	p.tops = append(frontTops, b.tops...)
	p.conts = b.nextID
	p.open = end < len(src) && leftOpen(b, doc.LastChild())
	return p
}

// leftOpen reports whether a part's last top-level block may go on past
// the part: a fenced code block its closing fence did not close, or an
// HTML block of a type that ends only at its marker, without one.
func leftOpen(b *builder, n ast.Node) bool {
	switch n := n.(type) {
	case *ast.FencedCodeBlock:
		t := b.tr[n]
		return t == nil || !t.closed
	case *ast.HTMLBlock:
		return n.HTMLBlockType <= ast.HTMLBlockType5 && !n.HasClosure()
	}
	return false
}

// join concatenates the parts, numbering tops and containers on.
func join(src []byte, parts []part) (document.Region, bool) {
	items, tops := 0, 0
	for _, p := range parts {
		if p.open {
			return document.Region{}, false
		}
		items, tops = items+len(p.items), tops+len(p.tops)
	}
	reg := document.Region{Src: src, Items: make([]*document.Item, 0, items), Tops: make([]document.Span, 0, tops)}
	conts := 0
	for _, p := range parts {
		for _, it := range p.items {
			it.SetTop(it.Top() + len(reg.Tops))
			for i := range it.Containers {
				it.Containers[i].ID += conts
			}
		}
		reg.Items = append(reg.Items, p.items...)
		reg.Tops = append(reg.Tops, p.tops...)
		conts += p.conts
	}
	return reg, true
}
