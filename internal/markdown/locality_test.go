package markdown

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
)

type editCase struct {
	name string
	run  func(d *document.Document, ptr string) (document.EditResult, error)
}

func editCases(it *document.Item, md string) []editCase {
	plain := "Edited text, plain and short."
	return []editCase{
		{"replace-plain", func(d *document.Document, p string) (document.EditResult, error) {
			if it.Kind == document.Heading {
				return d.ReplaceText(p, "New title")
			}
			return d.ReplaceText(p, plain)
		}},
		{"replace-identity", func(d *document.Document, p string) (document.EditResult, error) { return d.ReplaceText(p, md) }},
		{"insert-before", func(d *document.Document, p string) (document.EditResult, error) {
			return d.InsertBefore(p, "Inserted before.")
		}},
		{"insert-after", func(d *document.Document, p string) (document.EditResult, error) {
			return d.InsertAfter(p, "Inserted after.")
		}},
		{"delete", func(d *document.Document, p string) (document.EditResult, error) { return d.Delete(p) }},
	}
}

// tryEdit applies one edit to a fresh parse of src and checks locality
// (accepted) or that nothing changed (refused). It returns whether the edit
// was accepted.
func tryEdit(src []byte, index int, ec func(*document.Item, string) []editCase, k int) (bool, error) {
	d := Parse(append([]byte(nil), src...))
	it := d.At(index)
	c := ec(it, d.Markdown(it))[k]
	before := snapshot(d)
	oldSrc := string(d.Source())
	id := it.ID
	res, err := c.run(d, it.Pointer().String())
	if err != nil {
		if string(d.Source()) != oldSrc {
			return false, fmt.Errorf("%s refused (%v) but the source changed", c.name, err)
		}
		if s := snapshot(d); fmt.Sprint(s) != fmt.Sprint(before) {
			return false, fmt.Errorf("%s refused (%v) but the items changed", c.name, err)
		}
		return false, nil
	}
	if err := sameAsReparse(d); err != nil {
		return true, fmt.Errorf("%s: %v\nsource after: %q", c.name, err, d.Source())
	}
	sp := res.Splice
	got := string(d.Source())
	if got[:sp.Start] != oldSrc[:sp.Start] || got[sp.Start+len(sp.New):] != oldSrc[sp.Start+len(sp.Old):] ||
		got[sp.Start:sp.Start+len(sp.New)] != sp.New {
		return true, fmt.Errorf("%s: bytes outside the splice changed", c.name)
	}
	after := snapshot(d)
	for oid, md := range before {
		if oid == id && (c.name == "delete" || strings.HasPrefix(c.name, "replace")) {
			continue
		}
		if after[oid] != md {
			return true, fmt.Errorf("%s: item %d changed from %q to %q", c.name, oid, md, after[oid])
		}
	}
	want := len(before)
	switch {
	case strings.HasPrefix(c.name, "insert"):
		want++
	case c.name == "delete":
		want--
		if d.ByID(id) != nil {
			return true, fmt.Errorf("delete: item %d still there", id)
		}
	}
	if d.Len() != want {
		return true, fmt.Errorf("%s: %d items, want %d", c.name, d.Len(), want)
	}
	if len(d.Journal()) != 1 {
		return true, fmt.Errorf("%s: journal has %d entries", c.name, len(d.Journal()))
	}
	if _, err := d.Undo(); err != nil {
		return true, fmt.Errorf("%s: undo: %v", c.name, err)
	}
	if string(d.Source()) != oldSrc {
		return true, fmt.Errorf("%s: undo did not restore the source", c.name)
	}
	if err := sameAsReparse(d); err != nil {
		return true, fmt.Errorf("%s: after undo: %v", c.name, err)
	}
	if s := snapshot(d); fmt.Sprint(s) != fmt.Sprint(before) {
		return true, fmt.Errorf("%s: undo did not restore the items and IDs", c.name)
	}
	return true, nil
}

// requireEveryEdit applies every kind of edit to every item of src (each to
// a fresh parse), checking locality, a full re-parse and undo.
func requireEveryEdit(t *testing.T, src []byte) {
	t.Helper()
	for i := range Parse(src).Len() {
		for k := range 5 {
			if _, err := tryEdit(src, i, editCases, k); err != nil {
				t.Fatalf("item %d, edit %d: %v", i, k, err)
			}
		}
	}
}

func TestEditLocalitySpecExamples(t *testing.T) {
	accepted := map[string]int{}
	total := map[string]int{}
	for _, e := range specExamples(t) {
		src := []byte(e.Markdown)
		n := Parse(src).Len()
		for i := 0; i < n; i++ {
			for k := 0; k < 5; k++ {
				ok, err := tryEdit(src, i, editCases, k)
				name := editCases(&document.Item{}, "")[k].name
				total[name]++
				if ok {
					accepted[name]++
				}
				if err != nil {
					t.Errorf("example %d item %d: %v\ninput: %q", e.Example, i, err, e.Markdown)
				}
			}
		}
	}
	for name, n := range total {
		t.Logf("%-17s accepted %5d of %5d", name, accepted[name], n)
	}
}

// TestEditLocalityBooks applies every kind of edit to items spread over the
// real books, checking locality, a full re-parse and undo for each.
func TestEditLocalityBooks(t *testing.T) {
	samples := 12
	if testing.Short() {
		samples = 4
	}
	for name, src := range books(t) {
		t.Run(name, func(t *testing.T) {
			n := Parse(src).Len()
			accepted, tried := 0, 0
			for s := 0; s < samples; s++ {
				i := (s*7919 + 13) % n
				for k := 0; k < 5; k++ {
					ok, err := tryEdit(src, i, editCases, k)
					if err != nil {
						t.Fatalf("item %d: %v", i, err)
					}
					tried++
					if ok {
						accepted++
					}
				}
			}
			t.Logf("%s: %d of %d edits accepted", name, accepted, tried)
			if accepted < tried*8/10 {
				t.Errorf("only %d of %d edits accepted on ordinary prose", accepted, tried)
			}
		})
	}
}

type documentItem = document.Item

func replaceWith(text string) func(*document.Document, string) (document.EditResult, error) {
	return func(d *document.Document, p string) (document.EditResult, error) { return d.ReplaceText(p, text) }
}

func insertBeforeWith(text string) func(*document.Document, string) (document.EditResult, error) {
	return func(d *document.Document, p string) (document.EditResult, error) { return d.InsertBefore(p, text) }
}

// An edit whose effect reaches past the neighbour of its block, through
// blocks that touch without a blank line, is seen by the window parse (the
// fuzzer's "0)\n0\n|-\n-": replacing the empty list item with "0" makes
// "0)0" a paragraph line above the table "0\n|-", and the "-" below it
// then a setext underline that takes the three lines as one block).
func TestEditSeesTouchingBlocks(t *testing.T) {
	for _, src := range []string{"0)\n0\n|-\n-", "0)\n0\n|-\n-\n\nNext.\n", "Before.\n\n0)\n0\n|-\n-\n", "# H\n0)\n0\n|-\n-\n"} {
		t.Run(src, func(t *testing.T) {
			requireEveryEdit(t, []byte(src))
			d := Parse([]byte(src))
			var it *document.Item // the empty list item "0)"
			for _, c := range d.Items() {
				if it == nil && c.Kind == document.ListItem && d.Markdown(c) == "0)" {
					it = c
				}
			}
			if it == nil {
				t.Fatal("no list item 0)")
			}
			_, err := d.ReplaceText(it.Pointer().String(), "0")
			if err == nil {
				t.Fatalf("replacing %q with \"0\" accepted: %q", src, d.Source())
			}
			if string(d.Source()) != src {
				t.Fatalf("refused, but the source changed: %q", d.Source())
			}
		})
	}
}
