package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// Read is the JSON shape of a read: the named item and its neighbours.
type Read struct {
	Target pointer.Pointer `json:"target"`
	Items  []Item          `json:"items"`
}

// NewRead returns the JSON shape of a read; target is the position of the
// named item in items.
func NewRead(d *document.Document, items []*document.Item, target int) Read {
	return Read{Target: items[target].Pointer(), Items: NewItems(d, items)}
}

// CheckNeighbours validates the --before and --after values.
func CheckNeighbours(before, after int) error {
	for _, f := range []struct {
		name string
		n    int
	}{{"--before", before}, {"--after", after}} {
		if f.n < 0 || f.n > document.MaxNeighbours {
			return Usagef("%s must be between 0 and %d (got %d)", f.name, document.MaxNeighbours, f.n)
		}
	}
	return nil
}

// WriteRead writes each item's Markdown after a header line naming it, the
// target marked with ▶, with blank lines between the items.
func WriteRead(w io.Writer, d *document.Document, items []*document.Item, target int) {
	for i, it := range items {
		if i > 0 {
			fmt.Fprintln(w)
		}
		mark := ""
		if i == target {
			mark = "▶ "
		}
		fmt.Fprintf(w, "── %s%s %s ──\n", mark, it.Pointer(), it.Kind)
		fmt.Fprintln(w, strings.TrimRight(d.Markdown(it), "\r\n"))
	}
}
