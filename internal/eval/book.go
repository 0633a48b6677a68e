package eval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"unicode"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/search"
)

// Book is the book the gold is computed from: its items with the IDs every
// copy of it will have, its search index and its chapters. It is not safe
// for concurrent use.
type Book struct {
	Name     string
	src      []byte
	doc      *document.Document
	idx      *search.Index
	level    int       // the chapter heading level; 0 when the book has no chapters
	chapters []section // in document order
	lang     string
	nameList []name           // names(), found once
	matching map[string][]int // the items each name's search finds, by ID
}

// section is a chapter: its heading and the index just past its last item.
type section struct {
	heading *document.Item
	end     int
}

// NewBook parses src. ids and next are the item IDs the book's copies will
// get (editor.Session.ItemIDs of the book); nil numbers the items 1..N.
func NewBook(name string, src []byte, ids []int, next int) (*Book, error) {
	src = bytes.Clone(src)
	d := markdown.Parse(src)
	if ids != nil {
		if err := d.RestoreIDs(ids, next); err != nil {
			return nil, fmt.Errorf("book %s: %w", name, err)
		}
	}
	b := &Book{Name: name, src: src, doc: d, idx: search.Build(d), matching: map[string][]int{}}
	b.lang = language(d)
	b.level, b.chapters = chapters(d)
	return b, nil
}

// Source returns the book's bytes; the caller must not modify them.
func (b *Book) Source() []byte { return b.src }

// Tokens is llm.EstimateTokens of the whole book.
func (b *Book) Tokens() int { return llm.EstimateTokens(string(b.src)) }

// digest is the hex SHA-256 of data.
func digest(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// language is "ru" when the book has more Cyrillic letters than Latin
// ones, "en" otherwise.
func language(d *document.Document) string {
	cyr, lat := 0, 0
	for _, it := range d.Items() {
		for _, r := range it.Text {
			switch {
			case unicode.Is(unicode.Cyrillic, r):
				cyr++
			case unicode.Is(unicode.Latin, r):
				lat++
			}
		}
	}
	if cyr > lat {
		return "ru"
	}
	return "en"
}

// chapters finds the chapter level, the heading level with the most
// headings (the deeper one on a tie), and the chapters at it. A book with
// fewer than two such headings has no chapters.
func chapters(d *document.Document) (int, []section) {
	var perLevel [7]int
	for _, it := range d.Items() {
		if it.Kind == document.Heading {
			perLevel[it.Level]++
		}
	}
	level := 0
	for l := 1; l <= 6; l++ {
		if perLevel[l] > 0 && perLevel[l] >= perLevel[level] {
			level = l
		}
	}
	if level == 0 || perLevel[level] < 2 {
		return 0, nil
	}
	var out []section
	for _, it := range d.Items() {
		if it.Kind == document.Heading && it.Level == level {
			out = append(out, section{heading: it, end: d.SectionEnd(it.Index())})
		}
	}
	return level, out
}

// chapterOf returns the chapter holding the item at index i.
func (b *Book) chapterOf(i int) (section, bool) {
	for _, c := range b.chapters {
		if c.heading.Index() < i && i < c.end {
			return c, true
		}
	}
	return section{}, false
}

// mentions returns the items that are not headings and hold every one of
// the names (each in any of its forms, as a keyword cursor finds them), in
// document order.
func (b *Book) mentions(names ...string) []*document.Item {
	var ids []int
	for i, n := range names {
		got, ok := b.matching[n]
		if !ok {
			got = b.idx.ItemsMatching([]string{n})
			b.matching[n] = got
		}
		if i == 0 {
			ids = got
			continue
		}
		ids = intersect(ids, got)
	}
	var out []*document.Item
	for _, id := range ids {
		if it := b.doc.ByID(id); it != nil && it.Kind != document.Heading {
			out = append(out, it)
		}
	}
	slices.SortFunc(out, func(a, c *document.Item) int { return a.Index() - c.Index() })
	return out
}

// intersect returns the values of two sorted lists that are in both.
func intersect(a, b []int) []int {
	var out []int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// pointers returns the canonical pointers of items.
func pointers(items []*document.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Pointer().String()
	}
	return out
}

// resolve finds the item a pointer names in the book as generated.
func (b *Book) resolve(ptr string) (*document.Item, error) { return b.doc.Resolve(ptr) }

// markdownOf returns an item's Markdown.
func (b *Book) markdownOf(it *document.Item) string { return b.doc.Markdown(it) }
