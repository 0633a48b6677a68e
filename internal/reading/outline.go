package reading

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

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

// writeSections writes the lines of secs and their subsections, each
// built in one buffer (a book has hundreds of headings).
func writeSections(w io.Writer, secs []*Section, depth int) {
	var line []byte
	var walk func([]*Section, int)
	walk = func(secs []*Section, depth int) {
		for _, s := range secs {
			line = line[:0]
			for range depth {
				line = append(line, "  "...)
			}
			line = append(s.Pointer.AppendTo(line), "  "...)
			for range s.Level {
				line = append(line, '#')
			}
			line = append(append(append(line, ' '), s.Title...), "  ("...)
			line = appendPlural(line, s.Items, "item")
			if s.Total != s.Items {
				line = strconv.AppendInt(append(line, ", "...), int64(s.Total), 10)
				line = append(line, " in all"...)
			}
			_, _ = w.Write(append(line, ")\n"...)) // like fmt.Fprintf, text output ignores write errors
			walk(s.Children, depth+1)
		}
	}
	walk(secs, depth)
}

// appendPlural appends Plural(n, word) to b.
func appendPlural(b []byte, n int, word string) []byte {
	b = append(strconv.AppendInt(b, int64(n), 10), ' ')
	b = append(b, word...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}

// Plural is "1 item" or "3 items".
func Plural(n int, word string) string { return string(appendPlural(nil, n, word)) }

// OneLine joins the fields of s with single spaces.
func OneLine(s string) string {
	if oneLine(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// oneLine reports whether s already is its fields joined by single
// spaces: no leading, trailing, double or other white space.
func oneLine(s string) bool {
	prevSpace := true
	for _, r := range s {
		space := unicode.IsSpace(r)
		if space && (prevSpace || r != ' ') {
			return false
		}
		prevSpace = space
	}
	return !prevSpace || s == ""
}
