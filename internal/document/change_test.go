package document_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

// applyChange applies a Change to a source and its item IDs, as a store
// replays it.
func applyChange(t *testing.T, src string, ids []int, c document.Change) (string, []int) {
	t.Helper()
	s := c.Text
	if s.Start < 0 || s.Start+len(s.Old) > len(src) || src[s.Start:s.Start+len(s.Old)] != s.Old {
		t.Fatalf("the change's old bytes %q at %d are not in the source", s.Old, s.Start)
	}
	if c.At < 0 || c.At+c.Old > len(ids) {
		t.Fatalf("the change replaces items %d..%d of %d", c.At, c.At+c.Old, len(ids))
	}
	return src[:s.Start] + s.New + src[s.Start+len(s.Old):], slices.Concat(ids[:c.At], c.IDs, ids[c.At+c.Old:])
}

// Every run of random edits (one to five of them, undos too) is described
// by ChangeSince exactly: its splices turn the source and the item IDs
// before into those after.
func TestChangeSinceReplaysEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	d := markdown.Parse([]byte(book))
	ops := []string{"replace", "before", "after", "delete", "append", "undo"}
	for round := range 300 {
		src0 := string(d.Source())
		ids0, _ := d.ItemIDs()
		v0 := d.Version()
		for range 1 + r.IntN(5) {
			items := d.Items()
			it := items[r.IntN(len(items))]
			text := fmt.Sprintf("Paragraph %d of round %d.", r.IntN(1000), round)
			switch ops[r.IntN(len(ops))] {
			case "replace":
				if it.Kind == document.Paragraph {
					_, _ = d.ReplaceText(it.Pointer().String(), text)
				}
			case "before":
				_, _ = d.InsertBefore(it.Pointer().String(), text)
			case "after":
				_, _ = d.InsertAfter(it.Pointer().String(), text)
			case "delete":
				if len(items) > 3 {
					_, _ = d.Delete(it.Pointer().String())
				}
			case "append":
				_, _ = d.Append(text)
			case "undo":
				_, _ = d.Undo()
			}
		}
		c, ok := d.ChangeSince(v0)
		if !ok {
			t.Fatalf("round %d: ChangeSince(%d) unknown at version %d", round, v0, d.Version())
		}
		src, ids := applyChange(t, src0, ids0, c)
		want, next := d.ItemIDs()
		if src != string(d.Source()) || !slices.Equal(ids, want) || c.Next != next {
			t.Fatalf("round %d: the change does not replay the edits:\nsource %q\nwant   %q\nids %v next %d\nwant %v next %d",
				round, src, d.Source(), ids, c.Next, want, next)
		}
	}
	if d.Version() < 300 {
		t.Fatalf("only %d edits were applied", d.Version())
	}
	if _, ok := d.ChangeSince(d.Version() - 65); ok {
		t.Error("a change further back than the document keeps was given")
	}
	if _, ok := d.ChangeSince(d.Version() + 1); ok {
		t.Error("a change since a later version was given")
	}
}
