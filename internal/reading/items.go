package reading

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// ExcerptRunes is the length of the one-line excerpts of item lists.
const ExcerptRunes = 80

// Item is the stable JSON shape of an item.
type Item struct {
	Pointer    pointer.Pointer `json:"pointer"`
	ID         int             `json:"id"`
	Label      string          `json:"label"`
	Kind       document.Kind   `json:"kind"`
	Level      int             `json:"level,omitempty"`
	Index      int             `json:"index"`
	Containers string          `json:"containers,omitempty"`
	Markdown   string          `json:"markdown"`
	Text       string          `json:"text"`
}

// NewItem returns the JSON shape of an item.
func NewItem(v bookview.ItemView) Item {
	return Item{Pointer: v.Pointer, ID: v.ID, Label: v.Label, Kind: v.Kind, Level: v.Level,
		Index: v.Index, Containers: v.Containers, Markdown: v.Markdown, Text: v.Text}
}

// NewItems returns the JSON shapes of items, never nil.
func NewItems(items []bookview.ItemView) []Item {
	out := make([]Item, len(items))
	for i, v := range items {
		out[i] = NewItem(v)
	}
	return out
}

// WriteJSON writes v as indented JSON without HTML escaping (Markdown keeps
// its `<`, `>` and `&`). A failed write is an IOError.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return &IOError{Err: fmt.Errorf("write output: %w", err)}
	}
	return nil
}

// Excerpt returns the item's text on one line (whitespace collapsed), cut
// to at most n runes, at a word boundary when one is near, with "…";
// headings start with their `#` marks and table rows are separated by " / ".
func Excerpt(it bookview.ItemView, n int) string {
	s := it.Text
	if it.Kind == document.Table {
		s = strings.ReplaceAll(s, "\n", " / ") // one row after another
	}
	s = strings.Join(strings.Fields(s), " ")
	if it.Kind == document.Heading {
		s = strings.Repeat("#", it.Level) + " " + s
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, k := 0, 0
	for i := range s {
		if k == n-1 {
			cut = i
			break
		}
		k++
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > 0 && utf8.RuneCountInString(s[sp:cut]) <= n/5 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:.") + "…"
}

// nesting is the indentation that shows an item's depth in nested list
// items (two spaces per level below the first) and its block quotes.
func nesting(it bookview.ItemView) string {
	depth, quotes := 0, 0
	for c := range strings.SplitSeq(it.Containers, ">") {
		switch document.ContainerKind(c) {
		case document.InListItem:
			depth++
		case document.InQuote:
			quotes++
		}
	}
	if it.Kind == document.ListItem {
		depth--
	}
	return strings.Repeat("  ", max(depth, 0)) + strings.Repeat("> ", quotes)
}

// WriteItemLines writes one line per item, `POINTER  KIND  excerpt`, with
// the columns aligned and the excerpt indented by the item's nesting, each
// line after indent.
func WriteItemLines(w io.Writer, items []bookview.ItemView, indent string) {
	rows := make([][]string, len(items))
	for i, it := range items {
		rows[i] = []string{it.Pointer.String(), string(it.Kind), nesting(it) + Excerpt(it, ExcerptRunes)}
	}
	WriteColumns(w, rows, indent)
}

// WriteColumns writes one line per row after indent, every column but the
// last padded to its widest cell, two spaces apart, trailing spaces cut.
func WriteColumns(w io.Writer, rows [][]string, indent string) {
	var width []int
	for _, r := range rows {
		for c := 0; c < len(r)-1; c++ {
			if c == len(width) {
				width = append(width, 0)
			}
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for c, cell := range r {
			b.WriteString(cell)
			if c < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[c]-utf8.RuneCountInString(cell)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// Items is the JSON shape of an item list. Next, when set, is the first
// item after the list that passes the same filter: pass it as --from to
// continue.
type Items struct {
	Items []Item `json:"items"`
	Next  string `json:"next,omitempty"`
}

// Items lists up to limit items from the item from names (the first item
// when from is empty) of the given kinds (every kind when none), and the
// pointer of the next such item ("" when there is none). Pointer errors
// carry the nearest items.
func (b *Book) Items(from string, limit int, kinds []document.Kind) (bookview.ItemsView, error) {
	v, err := b.r.Items(from, limit, kinds)
	if err != nil {
		return bookview.ItemsView{}, b.WithNearest(err)
	}
	return v, nil
}

// NewItemList returns the JSON shape of an item list.
func NewItemList(v bookview.ItemsView) Items {
	return Items{Items: NewItems(v.Items), Next: v.Next}
}
