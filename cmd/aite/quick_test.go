package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/quick"
	"github.com/aitexteditor/aite/internal/reading"
)

// quickArgs are reading commands with every flag they take, and some they
// do not take or that fail (which quick must leave to cobra).
func quickArgs(book, sample string) [][]string {
	return [][]string{
		{"outline", book}, {"--json", "outline", book}, {"outline", book, "--json"},
		{"items", book}, {"items", book, "--limit", "3"}, {"items", book, "--from", "5", "--kind", "listitem,quote"},
		{"items", "--json", book, "--from", "1.1.p2", "--limit", "2"}, {"items", book, "--kind", "Code", "--kind", "Table"},
		{"items", book, "--from", "6:1.1.p9"}, // a stale label: the ID decides, with a note
		{"read", book, "3:1.p1"}, {"read", book, "1.1", "--before", "1", "--after", "2"}, {"read", "--json", book, "12"},
		{"read", book, "7", "--after", "200"},
		{"find", book, "apple"}, {"find", book, "Chapter", "--headings"}, {"find", book, "--exact", "first paragraph"},
		{"find", book, "--ranked", "paragraph", "chapter", "--limit", "2"}, {"find", "--json", book, "quoted"},
		{"find", book, "paragraph", "--kind", "paragraph", "--within", "1.1"}, {"find", book, "nothing-here"},
		{"cursor", book}, {"cursor", book, "--max-elements", "2", "--no-content"}, {"cursor", "--json", book, "--keywords", "paragraph"},
		{"cursor", book, "--regex", "(?i)^last", "--backward"}, {"cursor", book, "--kind", "heading", "--start-after", "2"},
		{"cursor", book, "--within", "1.1", "--max-bytes", "10"},
		{"find", sample, "Звёздочкину"}, {"find", sample, "Варя", "часы"}, {"find", sample, "--ranked", "профессор", "коза"},
		{"find", sample, "--exact", "часы на башне"}, {"outline", sample}, {"cursor", sample, "--keywords", "Варя часы", "--no-headings"},
		{"items", sample, "--limit", "40"}, {"read", sample, "9", "--before", "3"},
		// Not for quick: help, an unknown flag, bad values, bad pointers, another command.
		{"find", book, "--help"}, {"outline", book, "--frobnicate"}, {"items", book, "--limit", "0"},
		{"read", book, "999"}, {"read", book, "1.9.p9"}, {"find", book, "--exact", "--ranked", "x"},
		{"cursor", book, "--regex", "("}, {"read", book}, {"outline"}, {"undo", book}, {"items", book + ".missing"},
	}
}

// TestQuickPrintsWhatCobraPrints runs every reading command through the
// quick path and the ordinary one: where quick answers, its stdout, stderr
// and exit code are byte for byte those of the ordinary path; it answers
// every command that succeeds on a cached book and none that fails.
func TestQuickPrintsWhatCobraPrints(t *testing.T) {
	book := writeBook(t)
	src, err := os.ReadFile("../../examples/zvezdochkin.md")
	if err != nil {
		t.Fatal(err)
	}
	sample := filepath.Join(t.TempDir(), "zvezdochkin.md")
	if err := os.WriteFile(sample, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// Number the book, then insert an item: labels after it moved, so an
	// old pointer is stale.
	mustRun(t, "outline", book)
	mustRun(t, "edit", book, "insert-after", "5:1.1.p1", "--text", "Inserted paragraph.")
	mustRun(t, "outline", sample)
	for _, args := range quickArgs(book, sample) {
		want := run(t, "", args...)
		var out, errOut bytes.Buffer
		code, ok := quick.Run(args, &out, &errOut)
		name := strings.Join(args, " ")
		switch {
		case want.code != 0 && ok:
			t.Errorf("%s: quick answered (%d) a command that fails: %s", name, code, want.stderr)
		case want.code == 0 && !ok && !strings.Contains(name, "--help") && reading.NewCommand(strings.TrimPrefix(name, "--json ")[:strings.Index(strings.TrimPrefix(name, "--json "), " ")]) != nil:
			t.Errorf("%s: quick did not answer", name)
		case ok && (out.String() != want.stdout || errOut.String() != want.stderr || code != want.code):
			t.Errorf("%s:\nquick  (%d) %q\n%q\ncobra (%d) %q\n%q", name, code, out.String(), errOut.String(),
				want.code, want.stdout, want.stderr)
		case !ok && (out.Len() > 0 || errOut.Len() > 0):
			t.Errorf("%s: quick wrote output but left the command to cobra", name)
		}
	}
}

// Without a valid cache quick never answers: a book aite never read, a
// book changed by another program (same size and mtime), a damaged cache.
func TestQuickNeedsAValidCache(t *testing.T) {
	book := writeBook(t)
	if _, ok := quick.Run([]string{"outline", book}, new(bytes.Buffer), new(bytes.Buffer)); ok {
		t.Fatal("quick answered for a book aite never read")
	}
	mustRun(t, "outline", book)
	if _, ok := quick.Run([]string{"outline", book}, new(bytes.Buffer), new(bytes.Buffer)); !ok {
		t.Fatal("quick did not answer for a cached book")
	}
	fi, err := os.Stat(book)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(testBook, "Last paragraph.", "Lost paragraph.", 1)
	if err := os.WriteFile(book, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(book, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, ok := quick.Run([]string{"find", book, "Lost"}, new(bytes.Buffer), new(bytes.Buffer)); ok {
		t.Fatal("quick answered from the cache of another version of the book")
	}
	r := mustRun(t, "find", book, "Lost")
	if !strings.Contains(r.stdout, "**Lost** paragraph") {
		t.Fatalf("the changed book was not read: %q", r.stdout)
	}
	data, err := os.ReadFile(bookcache.CachePath(book))
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(bookcache.CachePath(book), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := quick.Run([]string{"outline", book}, new(bytes.Buffer), new(bytes.Buffer)); ok {
		t.Fatal("quick answered from a damaged cache")
	}
}

// A search of a codex entry or by meaning needs what only the ordinary path
// loads (the codex, an embedding model): quick leaves it alone, and the
// ordinary path answers --entry on a cached book as before.
func TestQuickLeavesEntriesAndMeaning(t *testing.T) {
	src, err := os.ReadFile("../../examples/zvezdochkin.md")
	if err != nil {
		t.Fatal(err)
	}
	book := filepath.Join(t.TempDir(), "zvezdochkin.md")
	if err := os.WriteFile(book, src, 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "codex", "build", book)
	for _, args := range [][]string{{"find", book, "--entry", "Звёздочкин"}, {"cursor", book, "--entry", "Варя"},
		{"find", book, "--semantic", "письмо"}, {"find", book, "--hybrid", "письмо"}} {
		var out, errOut bytes.Buffer
		if _, ok := quick.Run(args, &out, &errOut); ok || out.Len() > 0 || errOut.Len() > 0 {
			t.Errorf("%s: quick answered (or wrote)", strings.Join(args, " "))
		}
	}
	if r := mustRun(t, "find", book, "--entry", "Звёздочкин"); !strings.Contains(r.stdout, "**Звёздочкин**") {
		t.Errorf("find --entry: %q", r.stdout)
	}
	if r := mustRun(t, "cursor", book, "--entry", "Варя", "--no-content"); !strings.Contains(r.stdout, "portion 1") {
		t.Errorf("cursor --entry: %q", r.stdout)
	}
}
