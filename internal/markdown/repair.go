package markdown

import (
	"sort"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
)

// repair keeps the item list total and ordered when goldmark produces
// blocks that interleave (a setext underline that closes a paragraph whose
// middle lines became a table, say): top-level blocks that overlap are
// merged into one, and a merged block whose items are not in order becomes a
// single paragraph holding its lines. Ordinary input passes the fast check.
func (b *builder) repair() {
	if b.ordered() {
		return
	}
	type group struct {
		span  document.Span
		items []*document.Item
	}
	idx := make([]int, len(b.tops))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return b.tops[idx[i]].Start < b.tops[idx[j]].Start })
	byTop := map[int][]*document.Item{}
	for _, it := range b.items {
		byTop[it.Top()] = append(byTop[it.Top()], it)
	}
	var groups []*group
	for _, k := range idx {
		t := b.tops[k]
		if n := len(groups); n > 0 && t.Start <= groups[n-1].span.End {
			g := groups[n-1]
			g.span.End = max(g.span.End, t.End)
			g.items = append(g.items, byTop[k]...)
			continue
		}
		groups = append(groups, &group{span: t, items: byTop[k]})
	}
	b.items, b.tops = nil, nil
	for k, g := range groups {
		b.tops = append(b.tops, g.span)
		items := g.items
		if !inOrder(items) {
			items = []*document.Item{b.merged(g.span, items)}
		}
		for _, it := range items {
			it.SetTop(k)
		}
		b.items = append(b.items, items...)
	}
}

// ordered reports whether items and tops are in order without overlaps.
func (b *builder) ordered() bool {
	for i := 1; i < len(b.tops); i++ {
		if b.tops[i].Start <= b.tops[i-1].End {
			return false
		}
	}
	return inOrder(b.items)
}

func inOrder(items []*document.Item) bool {
	for i := 1; i < len(items); i++ {
		if items[i].Start() <= items[i-1].End() || items[i].Top() < items[i-1].Top() {
			return false
		}
	}
	return true
}

// merged is one paragraph covering a span, with the texts of the items.
func (b *builder) merged(span document.Span, items []*document.Item) *document.Item {
	sort.SliceStable(items, func(i, j int) bool { return items[i].Start() < items[j].Start() })
	texts := make([]string, 0, len(items))
	for _, it := range items {
		texts = append(texts, it.Text)
	}
	it := &document.Item{Kind: document.Paragraph, Text: strings.Join(texts, " ")}
	it.SetSpan(span.Start, span.End)
	if len(items) > 0 {
		it.Containers, it.QuoteDepth = items[0].Containers, items[0].QuoteDepth
	}
	return it
}
