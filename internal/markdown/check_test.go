package markdown

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"

	"github.com/aitexteditor/aite/internal/document"
)

type specExample struct {
	Markdown string `json:"markdown"`
	Example  int    `json:"example"`
	Section  string `json:"section"`
}

// specExamples loads the CommonMark examples shipped in goldmark's module.
func specExamples(t testing.TB) []specExample {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yuin/goldmark").Output()
	if err != nil {
		t.Fatalf("locate goldmark module: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "_test", "spec.json"))
	if err != nil {
		t.Fatalf("read spec.json: %v", err)
	}
	var ex []specExample
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	return ex
}

// books returns the real books of ../shared/data/books, or skips.
func books(t testing.TB) map[string][]byte {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "data", "books")
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	if len(files) == 0 {
		t.Skipf("no books in %s (the shared data folder is not beside the checkout)", dir)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// checkInvariants verifies the structural invariants of a parsed document.
func checkInvariants(d *document.Document) error {
	src := d.Source()
	prev := 0
	for i, it := range d.Items() {
		switch {
		case it.Index() != i:
			return fmt.Errorf("item %d has index %d", i, it.Index())
		case it.Start() < prev || it.End() < it.Start() || it.End() > len(src):
			return fmt.Errorf("item %s span [%d,%d) out of order (prev end %d)", it.Pointer(), it.Start(), it.End(), prev)
		case it.Start() > 0 && src[it.Start()-1] != '\n':
			return fmt.Errorf("item %s does not start at a line start", it.Pointer())
		case it.End() < len(src) && src[it.End()] != '\n' && src[it.End()] != '\r':
			return fmt.Errorf("item %s does not end at a line end", it.Pointer())
		case it.Top() < 0 || it.Top() >= len(d.Tops()):
			return fmt.Errorf("item %s has top %d of %d", it.Pointer(), it.Top(), len(d.Tops()))
		}
		top := d.Tops()[it.Top()]
		if it.Start() < top.Start || it.End() > top.End {
			return fmt.Errorf("item %s [%d,%d) outside its top [%d,%d)", it.Pointer(), it.Start(), it.End(), top.Start, top.End)
		}
		if d.ByID(it.ID) != it {
			return fmt.Errorf("item %s not found by ID", it.Pointer())
		}
		prev = it.End()
	}
	if err := checkCoverage(d); err != nil {
		return err
	}
	return checkItemCoverage(d)
}

// checkItemCoverage: every line with content lies in an item or in a link
// reference definition (the one block that is not an item), so that no
// edit leaves a line of a block behind.
func checkItemCoverage(d *document.Document) error {
	src := d.Source()
	var refs []document.Span
	doc, _, _ := parseAST(src, nil)
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Kind() != ast.KindLinkReferenceDefinition {
			return ast.WalkContinue, nil
		}
		if l := n.Lines(); l.Len() > 0 {
			refs = append(refs, document.Span{Start: lineStart(src, l.At(0).Start), End: lineEnd(src, l.At(l.Len()-1).Start)})
		}
		return ast.WalkContinue, nil
	})
	items := d.Items()
	k := 0
	for i := 0; i < len(src); {
		e := lineEnd(src, i)
		if len(bytes.Trim(src[i:e], " \t\r>")) > 0 {
			for k < len(items) && items[k].End() < i {
				k++
			}
			in := k < len(items) && items[k].Start() <= i
			for _, r := range refs {
				in = in || (r.Start <= i && i <= r.End)
			}
			if !in {
				return fmt.Errorf("line at %d (%q) is in no item", i, src[i:e])
			}
		}
		i = nextLine(src, e)
	}
	return nil
}

// checkCoverage: every line with content lies in a top-level block.
func checkCoverage(d *document.Document) error {
	src := d.Source()
	tops := d.Tops()
	k := 0
	for i := 0; i < len(src); {
		e := bytes.IndexByte(src[i:], '\n')
		if e < 0 {
			e = len(src)
		} else {
			e += i
		}
		if len(bytes.Trim(src[i:e], " \t\r>")) > 0 {
			for k < len(tops) && tops[k].End < i {
				k++
			}
			if k >= len(tops) || tops[k].Start > i {
				return fmt.Errorf("line at %d (%q) is in no top-level block", i, src[i:e])
			}
		}
		i = e + 1
	}
	for j := 1; j < len(tops); j++ {
		if tops[j].Start <= tops[j-1].End && tops[j].Start != tops[j-1].End {
			return fmt.Errorf("tops %d and %d overlap: %v %v", j-1, j, tops[j-1], tops[j])
		}
	}
	return nil
}

// sameAsReparse compares an edited document with a fresh parse of its
// source: same items (kind, level, span, text, containers grouped the same).
func sameAsReparse(d *document.Document) error {
	fresh := Parse(append([]byte(nil), d.Source()...))
	a, b := d.Items(), fresh.Items()
	if len(a) != len(b) {
		return fmt.Errorf("edited document has %d items, re-parse has %d", len(a), len(b))
	}
	fwd, back := map[int]int{}, map[int]int{}
	for i := range a {
		x, y := a[i], b[i]
		if x.Kind != y.Kind || x.Level != y.Level || x.Start() != y.Start() || x.End() != y.End() || x.Text != y.Text ||
			x.Top() != y.Top() || x.Label != y.Label || x.QuoteDepth != y.QuoteDepth || x.Shape != y.Shape {
			return fmt.Errorf("item %d differs:\n edited  %+v\n reparse %+v", i, x.Copy(), y.Copy())
		}
		if len(x.Containers) != len(y.Containers) {
			return fmt.Errorf("item %d containers differ: %v vs %v", i, x.Containers, y.Containers)
		}
		for j, c := range x.Containers {
			o := y.Containers[j]
			if c.Kind != o.Kind || (fwd[c.ID] != 0 && fwd[c.ID] != o.ID) || (back[o.ID] != 0 && back[o.ID] != c.ID) {
				return fmt.Errorf("item %d container grouping differs: %v vs %v", i, x.Containers, y.Containers)
			}
			fwd[c.ID], back[o.ID] = o.ID, c.ID
		}
	}
	if len(d.Tops()) != len(fresh.Tops()) {
		return fmt.Errorf("tops differ: %v vs %v", d.Tops(), fresh.Tops())
	}
	for i, t := range d.Tops() {
		if t != fresh.Tops()[i] {
			return fmt.Errorf("top %d differs: %v vs %v", i, t, fresh.Tops()[i])
		}
	}
	return nil
}

// snapshot captures every item's Markdown by ID.
func snapshot(d *document.Document) map[int]string {
	m := make(map[int]string, d.Len())
	for _, it := range d.Items() {
		m[it.ID] = d.Markdown(it)
	}
	return m
}
