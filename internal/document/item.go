package document

import "github.com/aitexteditor/aite/internal/pointer"

// Kind is the closed set of item kinds.
type Kind string

// The item kinds of BOOK_CORE § 1.
const (
	Heading       Kind = "Heading"
	Paragraph     Kind = "Paragraph"
	ListItem      Kind = "ListItem"
	Quote         Kind = "Quote"
	Code          Kind = "Code"
	Table         Kind = "Table"
	ThematicBreak Kind = "ThematicBreak"
	HTML          Kind = "Html"
	FootnoteDef   Kind = "FootnoteDef"
	FrontMatter   Kind = "FrontMatter"
)

// Kinds lists every item kind in a stable order.
var Kinds = []Kind{Heading, Paragraph, ListItem, Quote, Code, Table, ThematicBreak, HTML, FootnoteDef, FrontMatter}

// ParseKind accepts a kind name case-insensitively (also `html`, `list_item`,
// `listitem`, `footnote`).
func ParseKind(s string) (Kind, bool) {
	key := normKindName(s)
	for _, k := range Kinds {
		if normKindName(string(k)) == key {
			return k, true
		}
	}
	if key == "footnote" {
		return FootnoteDef, true
	}
	return "", false
}

func normKindName(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// ContainerKind names the containers an item can sit in.
type ContainerKind string

// Container kinds.
const (
	InList     ContainerKind = "List"
	InListItem ContainerKind = "ListItem"
	InQuote    ContainerKind = "Quote"
)

// Container is one enclosing container of an item, outermost first in
// Item.Containers. ID identifies the container instance within the
// document: two items with the same container ID at the same depth share
// that list / list item / block quote.
type Container struct {
	Kind ContainerKind `json:"kind"`
	ID   int           `json:"id"`
}

// Span is a byte range [Start, End) of the source.
type Span struct {
	Start, End int
}

// Shape records how the item is written, so that edits can re-apply the
// container prefixes and heading syntax. It is filled by the parser.
type Shape struct {
	// Prefix is the source from the item's start to where the block itself
	// starts: container prefixes and list markers (`- `, `> `, `  1. `), or
	// indentation. It can span lines when a container marker stands alone on
	// the line before the block.
	Prefix string
	// HeadMarker is the ATX opening sequence with its spaces (`## `).
	HeadMarker string
	// Underline is the setext underline line without container prefix.
	Underline string
	// Tight is true for a ListItem whose list is tight.
	Tight bool
}

// Item is one addressable block of a document.
//
// Where an item stands (Index, Start, End, Top) is read through methods:
// an item in a document is held in a chunk of items (chunk.go) and keeps
// those numbers relative to its chunk, so that an edit shifts the chunks
// after it, not every item after it.
type Item struct {
	// c is the chunk holding the item, nil for an item in no document
	// (a parser's, or one built from an encoding): then index, start, end
	// and top are absolute, else relative to c's bases.
	c *chunk[*Item]
	// index is the 0-based position in the document. start and end
	// delimit the item's Markdown in the source: whole lines, container
	// prefixes included, the final line ending excluded. top is the index
	// of the item's top-level block.
	index, start, end, top int

	ID    int
	Label string
	Kind  Kind
	// Level is the heading level (1..6); 0 for other kinds.
	Level int
	// Text is the plain text with inline markup removed.
	Text string
	// Containers lists the enclosing lists, list items and block quotes,
	// outermost first.
	Containers []Container
	// QuoteDepth is the number of enclosing block quotes.
	QuoteDepth int
	Shape      Shape
}

// Index returns the item's 0-based position in the document.
func (it *Item) Index() int {
	if it.c == nil {
		return it.index
	}
	return it.c.idx + it.index
}

// Start returns the offset of the item's first byte in the source: items
// are whole lines, container prefixes included.
func (it *Item) Start() int {
	if it.c == nil {
		return it.start
	}
	return it.c.off + it.start
}

// End returns the offset just after the item's last byte, its final line
// ending excluded.
func (it *Item) End() int {
	if it.c == nil {
		return it.end
	}
	return it.c.off + it.end
}

// Top returns the index of the item's top-level block (Document.Top).
func (it *Item) Top() int {
	if it.c == nil {
		return it.top
	}
	return it.c.top + it.top
}

// SetSpan sets Start and End of an item in no document (a Parser's); it
// panics for an item of a document, which only its edits move.
func (it *Item) SetSpan(start, end int) {
	it.loose()
	it.start, it.end = start, end
}

// SetTop sets Top of an item in no document: see SetSpan.
func (it *Item) SetTop(top int) {
	it.loose()
	it.top = top
}

// SetIndex sets Index of an item in no document: see SetSpan.
func (it *Item) SetIndex(index int) {
	it.loose()
	it.index = index
}

// Copy returns a copy of the item that belongs to no document: its
// numbers are where the item is now, and no later edit moves them. Two
// copies compare equal (reflect.DeepEqual) when the items are the same,
// whichever way their documents hold them.
func (it *Item) Copy() *Item {
	cp := *it
	cp.index, cp.start, cp.end, cp.top = it.Index(), it.Start(), it.End(), it.Top()
	cp.c = nil
	return &cp
}

func (it *Item) loose() {
	if it.c != nil {
		panic("document: an item of a document is moved only by its edits")
	}
}

// Pointer returns the item's canonical pointer.
func (it *Item) Pointer() pointer.Pointer {
	return pointer.Pointer{ID: it.ID, Label: it.Label}
}

// ContainerPath describes the containers as a path such as `List>ListItem>Quote`.
func (it *Item) ContainerPath() string {
	s := ""
	for i, c := range it.Containers {
		if i > 0 {
			s += ">"
		}
		s += string(c.Kind)
	}
	return s
}

func (it *Item) inContainer(id int) bool {
	for _, c := range it.Containers {
		if c.ID == id {
			return true
		}
	}
	return false
}

// innermost returns the ID of the innermost container of the given kind, or 0.
func (it *Item) innermost(kind ContainerKind) int {
	for i := len(it.Containers) - 1; i >= 0; i-- {
		if it.Containers[i].Kind == kind {
			return it.Containers[i].ID
		}
	}
	return 0
}
