package document_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

// chunkBook writes a book of n blocks: sections of paragraphs, lists
// (nested ones too), block quotes, code and a table now and then.
func chunkBook(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		switch k := r.IntN(20); {
		case i%30 == 0:
			fmt.Fprintf(&b, "## Section %d\n\n", i)
		case k < 12:
			fmt.Fprintf(&b, "Paragraph %d with some words.\nA second line %d.\n\n", i, r.IntN(1000))
		case k < 15:
			fmt.Fprintf(&b, "- item %d\n- item %d\n  - nested %d\n\n", i, i+1, i+2)
		case k < 17:
			fmt.Fprintf(&b, "> quoted %d\n>\n> again %d\n\n", i, i)
		case k < 18:
			fmt.Fprintf(&b, "```\ncode %d\n```\n\n", i)
		case k < 19:
			fmt.Fprintf(&b, "| a | b |\n|---|---|\n| %d | x |\n\n", i)
		default:
			fmt.Fprintf(&b, "***\n\n")
		}
	}
	return b.String()
}

// sameAsParse compares every item's numbers, kind, text and label, and
// every top-level span, with a fresh parse of the document's source; every
// label resolves to its item (the label index kept in step by the edits).
// Labels of before that no item has any more resolve to nothing.
func sameAsParse(d *document.Document, before []string) error {
	fresh := markdown.Parse([]byte(string(d.Source())))
	if d.Len() != fresh.Len() {
		return fmt.Errorf("%d items, a parse has %d", d.Len(), fresh.Len())
	}
	for i := range d.Len() {
		x, y := d.At(i), fresh.At(i)
		if x.Index() != i || x.Index() != y.Index() || x.Start() != y.Start() || x.End() != y.End() || x.Top() != y.Top() ||
			x.Kind != y.Kind || x.Level != y.Level || x.Text != y.Text || x.Label != y.Label || d.ByID(x.ID) != x {
			return fmt.Errorf("item %d differs:\n edited %+v\n parsed %+v", i, x.Copy(), y.Copy())
		}
		if strings.Trim(x.Label, "0123456789") != "" { // a bare number may also be an ID
			if got, err := d.Resolve(x.Label); err != nil || got != x {
				return fmt.Errorf("label %s of item %d resolves to %v (%v)", x.Label, i, got, err)
			}
		}
	}
	labels := map[string]bool{}
	for _, it := range d.Items() {
		labels[it.Label] = true
	}
	for _, gone := range before {
		if got, err := d.Resolve(gone); !labels[gone] && err == nil {
			return fmt.Errorf("label %s, which no item has now, resolves to %s", gone, got.Pointer())
		}
	}
	if fmt.Sprint(d.Tops()) != fmt.Sprint(fresh.Tops()) {
		return fmt.Errorf("tops differ:\n edited %v\n parsed %v", d.Tops(), fresh.Tops())
	}
	return nil
}

// checkChunks: no chunk is empty or longer than twice the chunk size, and
// there are no more chunks than the items need.
func checkChunks(d *document.Document, size int) error {
	items, tops := document.ChunkSizes(d)
	for _, sizes := range [][]int{items, tops} {
		total := 0
		for _, n := range sizes {
			if n < 1 || n >= 2*size {
				return fmt.Errorf("chunk of %d (size %d): %v", n, size, sizes)
			}
			total += n
		}
		if len(sizes) > 2*total/size+2 {
			return fmt.Errorf("%d chunks for %d (size %d): %v", len(sizes), total, size, sizes)
		}
	}
	return nil
}

// After any sequence of edits, the chunked document is the document a
// parse of its source gives: the same Index, Start, End and Top of every
// item and the same top-level spans. The sequences cross chunk
// boundaries, empty chunks (runs of deletes at one place), grow one past
// twice its size (runs of inserts at one place) and edit at random.
func TestEditsAcrossChunks(t *testing.T) {
	for _, size := range []int{2, 5, 64} {
		t.Run(fmt.Sprintf("chunk%d", size), func(t *testing.T) {
			defer document.SetChunkSize(size)()
			r := rand.New(rand.NewPCG(uint64(size), 21))
			d := markdown.Parse([]byte(chunkBook(r, 200)))
			require.NoError(t, sameAsParse(d, nil))
			accepted := 0
			for step := range 900 {
				var before []string
				for _, it := range d.Items() {
					if strings.Trim(it.Label, "0123456789") != "" {
						before = append(before, it.Label)
					}
				}
				op, err := randomEdit(r, d, step)
				switch {
				case err == nil:
					accepted++
				case !errors.Is(err, document.ErrStructure) && !errors.Is(err, document.ErrHeading):
					t.Fatalf("step %d %s: %v", step, op, err)
				}
				if err := sameAsParse(d, before); err != nil {
					t.Fatalf("step %d %s: %v", step, op, err)
				}
				if err := checkChunks(d, size); err != nil {
					t.Fatalf("step %d %s: %v", step, op, err)
				}
			}
			require.Greater(t, accepted, 600, "most edits are accepted")
		})
	}
}

// randomEdit makes one edit: in phases of 100 steps, a run of deletes at
// one place, a run of inserts at one place, or edits anywhere.
func randomEdit(r *rand.Rand, d *document.Document, step int) (string, error) {
	n := d.Len()
	if n == 0 {
		_, err := d.Append(fmt.Sprintf("Fresh paragraph %d.", step))
		return "append", err
	}
	at := r.IntN(n)
	if phase := step / 100 % 3; phase < 2 {
		at = min(n-1, n/3+(step/300)*7%max(1, n/3)) // one place for the run
		if phase == 0 {
			it := d.At(at)
			_, err := d.Delete(it.Pointer().String())
			return "delete " + it.Pointer().String(), err
		}
	}
	it := d.At(at)
	ptr := it.Pointer().String()
	text := fmt.Sprintf("New text %d,\nwith a second line.", step)
	switch r.IntN(4) {
	case 0:
		_, err := d.ReplaceText(ptr, text)
		return "replace " + ptr, err
	case 1:
		_, err := d.InsertBefore(ptr, text)
		return "insert before " + ptr, err
	case 2:
		_, err := d.InsertAfter(ptr, text)
		return "insert after " + ptr, err
	}
	_, err := d.Delete(ptr)
	return "delete " + ptr, err
}
