package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/testbook"
)

// A keyword search on a book aite has no index of matches the words in the
// texts instead of building the index: it finds exactly what the index
// finds. Each query runs on a book never read (the scan) and on the same
// book whose cache holds the index.
func TestKeywordSearchWithoutIndexFindsTheSame(t *testing.T) {
	books := testbook.Books(t)
	src, err := os.ReadFile("../../examples/zvezdochkin.md")
	if err != nil {
		t.Fatal(err)
	}
	books["zvezdochkin.md"] = src
	queries := [][]string{
		{"find", "Симонов"}, {"find", "Симонова"}, {"find", "человек"}, {"find", "Зверков", "Трудолюбов"},
		{"find", "Elizabeth"}, {"find", "Mr. Darcy"}, {"find", "loved", "--headings"}, {"find", "Варя", "часы"},
		{"find", "Звёздочкину"}, {"find", "professor"}, {"find", "--json", "Bennet"},
		{"cursor", "--keywords", "Варя часы", "--no-headings"}, {"cursor", "--keywords", "Darcy", "--max-elements", "5"},
	}
	found := 0
	for name, src := range books {
		scan := filepath.Join(t.TempDir(), name)
		indexed := filepath.Join(t.TempDir(), name)
		for _, p := range []string{scan, indexed} {
			if err := os.WriteFile(p, src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mustRun(t, "find", indexed, "--ranked", "the") // builds the index and keeps it
		if c, err := bookcache.Open(indexed); err != nil || c.Index == nil {
			t.Fatalf("%s: no index in the cache (%v)", name, err)
		}
		for _, q := range queries {
			if err := os.RemoveAll(bookcache.StateDir(scan)); err != nil {
				t.Fatal(err)
			}
			args := append([]string{q[0], scan}, q[1:]...)
			got := run(t, "", args...)
			want := run(t, "", append([]string{q[0], indexed}, q[1:]...)...)
			if want.code == 0 && !strings.Contains(want.stdout, "no items match") {
				found++
			}
			if got.stdout != want.stdout || got.code != want.code {
				t.Errorf("%s %v: without the index (exit %d)\n%s\nwith it (exit %d)\n%s", name, q, got.code, got.stdout, want.code, want.stdout)
			}
		}
		if c, err := bookcache.Open(scan); err != nil || c.Index != nil {
			t.Errorf("%s: the scan built an index (%v)", name, err)
		}
	}
	if found < len(queries) {
		t.Errorf("only %d of the searches found anything: the test compares too little", found)
	}
}
