package document_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

// Edits keep the source in pieces (no edit copies the whole book), and
// many of them, none followed by a call of Source, leave exactly the bytes
// and items that the splices they report give and a full parse of those
// bytes finds, in a bounded number of pieces.
func TestEditsSpliceWithoutJoining(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 3))
	d := markdown.Parse([]byte(book))
	want := book
	pieces := 0
	for round := range 700 {
		items := d.Items()
		it := items[r.IntN(len(items))]
		text := fmt.Sprintf("Paragraph %d of round %d.", r.IntN(1000), round)
		var res document.EditResult
		var err error
		switch r.IntN(4) {
		case 0:
			if it.Kind != document.Paragraph {
				continue
			}
			res, err = d.ReplaceText(it.Pointer().String(), text)
		case 1:
			res, err = d.InsertAfter(it.Pointer().String(), text)
		case 2:
			if len(items) < 20 {
				continue
			}
			res, err = d.Delete(it.Pointer().String())
		case 3:
			res, err = d.InsertBefore(it.Pointer().String(), text)
		}
		if err != nil {
			continue
		}
		s := res.Splice
		want = want[:s.Start] + s.New + want[s.Start+len(s.Old):]
		pieces = max(pieces, len(d.SourceText().Parts()))
		if d.Size() != len(want) {
			t.Fatalf("round %d: %d bytes, want %d", round, d.Size(), len(want))
		}
	}
	if pieces < 10 {
		t.Fatalf("the source never was in more than %d pieces: the edits joined it", pieces)
	}
	if n := len(d.SourceText().Parts()); n > 300 {
		t.Fatalf("%d pieces: not bounded", n)
	}
	if got := string(d.SourceText().Bytes()); got != want {
		t.Fatalf("the pieces are not the spliced source")
	}
	full := markdown.Parse([]byte(want))
	if full.Len() != d.Len() {
		t.Fatalf("%d items, a full parse finds %d", d.Len(), full.Len())
	}
	for i, it := range full.Items() {
		got := d.At(i)
		if d.Markdown(got) != full.Markdown(it) || got.Text != it.Text || got.Kind != it.Kind {
			t.Fatalf("item %d: %q (%q), a full parse gives %q (%q)", i, d.Markdown(got), got.Text, full.Markdown(it), it.Text)
		}
	}
	if string(d.Source()) != want || len(d.SourceText().Parts()) != 1 {
		t.Fatal("Source did not join the pieces")
	}
}
