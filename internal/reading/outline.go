package reading

import (
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/pointer"
)

// Outline is the JSON shape of a book's heading tree.
type Outline struct {
	Preamble int        `json:"preamble"`
	Sections []*Section `json:"sections"`
}

// Section is the JSON shape of one heading with its subsections.
type Section struct {
	Pointer  pointer.Pointer `json:"pointer"`
	ID       int             `json:"id"`
	Label    string          `json:"label"`
	Level    int             `json:"level"`
	Title    string          `json:"title"`
	Items    int             `json:"items"`
	Total    int             `json:"total"`
	Children []*Section      `json:"children"`
}

// Outline returns the book's outline.
func (b *Book) Outline() (Outline, error) {
	v, err := b.r.Outline()
	if err != nil {
		return Outline{}, err
	}
	return Outline{Preamble: v.Preamble, Sections: newSections(v.Sections)}, nil
}

func newSections(secs []bookview.SectionView) []*Section {
	out := make([]*Section, len(secs))
	for i, s := range secs {
		out[i] = &Section{Pointer: s.Pointer, ID: s.Pointer.ID, Label: s.Pointer.Label, Level: s.Level,
			Title: OneLine(s.Title), Items: s.Items, Total: s.Total, Children: newSections(s.Children)}
	}
	return out
}

// WriteOutline writes the outline as an indented heading tree, two spaces
// per nesting depth:
//
//	1:1  # Title  (3 items, 120 in all)
func WriteOutline(w io.Writer, o Outline) {
	if o.Preamble > 0 {
		fmt.Fprintf(w, "(%s before the first heading)\n", Plural(o.Preamble, "item"))
	}
	writeSections(w, o.Sections, 0)
}

func writeSections(w io.Writer, secs []*Section, depth int) {
	for _, s := range secs {
		fmt.Fprintf(w, "%s%s  %s %s  (%s)\n", strings.Repeat("  ", depth), s.Pointer,
			strings.Repeat("#", s.Level), s.Title, counts(s))
		writeSections(w, s.Children, depth+1)
	}
}

func counts(s *Section) string {
	if s.Total == s.Items {
		return Plural(s.Items, "item")
	}
	return fmt.Sprintf("%s, %d in all", Plural(s.Items, "item"), s.Total)
}

// Plural is "1 item" or "3 items".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// OneLine joins the fields of s with single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
