package reading

import (
	"fmt"
	"io"
	"strings"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// Read is the JSON shape of a read: the named item and its neighbours.
type Read struct {
	Target pointer.Pointer `json:"target"`
	Items  []Item          `json:"items"`
}

// NewRead returns the JSON shape of a read.
func NewRead(v bookview.ReadView) Read {
	return Read{Target: v.Target, Items: NewItems(v.Items)}
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

// Read returns the item ptr names with up to before and after neighbours.
// Pointer errors carry the nearest items.
func (b *Book) Read(ptr string, before, after int) (bookview.ReadView, error) {
	v, err := b.r.Read(ptr, before, after)
	if err != nil {
		return bookview.ReadView{}, b.WithNearest(err)
	}
	return v, nil
}

// WriteRead writes each item's Markdown after a header line naming it, the
// target marked with ▶, with blank lines between the items.
func WriteRead(w io.Writer, v bookview.ReadView) {
	for i, it := range v.Items {
		if i > 0 {
			fmt.Fprintln(w)
		}
		mark := ""
		if it.ID == v.Target.ID {
			mark = "▶ "
		}
		fmt.Fprintf(w, "── %s%s %s ──\n", mark, it.Pointer, it.Kind)
		fmt.Fprintln(w, strings.TrimRight(it.Markdown, "\r\n"))
	}
}
