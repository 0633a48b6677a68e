package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

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

// NewItem returns the JSON shape of an item of d.
func NewItem(d *document.Document, it *document.Item) Item {
	return Item{Pointer: it.Pointer(), ID: it.ID, Label: it.Label, Kind: it.Kind, Level: it.Level,
		Index: it.Index, Containers: it.ContainerPath(), Markdown: d.Markdown(it), Text: it.Text}
}

// NewItems returns the JSON shapes of items, never nil.
func NewItems(d *document.Document, items []*document.Item) []Item {
	out := make([]Item, len(items))
	for i, it := range items {
		out[i] = NewItem(d, it)
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
func Excerpt(it *document.Item, n int) string {
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
func nesting(it *document.Item) string {
	depth := 0
	for _, c := range it.Containers {
		if c.Kind == document.InListItem {
			depth++
		}
	}
	if it.Kind == document.ListItem {
		depth--
	}
	return strings.Repeat("  ", max(depth, 0)) + strings.Repeat("> ", it.QuoteDepth)
}

// WriteItemLines writes one line per item, `POINTER  KIND  excerpt`, with
// the columns aligned and the excerpt indented by the item's nesting, each
// line after indent.
func WriteItemLines(w io.Writer, items []*document.Item, indent string) {
	pw, kw := 0, 0
	for _, it := range items {
		pw = max(pw, len(it.Pointer().String()))
		kw = max(kw, len(it.Kind))
	}
	for _, it := range items {
		line := fmt.Sprintf("%s%-*s  %-*s  %s%s", indent, pw, it.Pointer(), kw, it.Kind, nesting(it), Excerpt(it, ExcerptRunes))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// Items is the JSON shape of an item list. Next, when set, is the first
// item after the list that passes the same filter: pass it as --from to
// continue.
type Items struct {
	Items []Item          `json:"items"`
	Next  pointer.Pointer `json:"next,omitzero"`
}

// Page returns up to limit items from the item from names (the first item
// when from is empty) that pass keep, and the pointer of the next such item
// (zero when there is none). Pointer errors carry the nearest items.
func Page(d *document.Document, from string, limit int, keep func(*document.Item) bool) ([]*document.Item, pointer.Pointer, error) {
	items, err := d.Range(from, limit+1, keep)
	if err != nil {
		return nil, pointer.Pointer{}, WithNearest(d, err)
	}
	if len(items) <= limit {
		return items, pointer.Pointer{}, nil
	}
	return items[:limit], items[limit].Pointer(), nil
}
