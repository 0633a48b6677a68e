package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testBook has a preamble, headings, paragraphs, a nested list, a quote,
// code and a table. Its items:
//
//	1:p1 Paragraph, 2:1 Heading, 3:1.p1 Paragraph, 4:1.1 Heading,
//	5:1.1.p1 Paragraph, 6:1.1.p2 ListItem, 7:1.1.p3 ListItem (nested),
//	8:1.1.p4 ListItem (nested), 9:1.1.p5 ListItem, 10:1.1.p6 Quote,
//	11:1.1.p7 Code, 12:1.1.p8 Table, 13:1.2 Heading, 14:1.2.p1 Paragraph
const testBook = "Preamble paragraph before any heading.\n" +
	"\n" +
	"# Title\n" +
	"\n" +
	"Intro paragraph with *emphasis*.\n" +
	"\n" +
	"## Chapter One\n" +
	"\n" +
	"First paragraph of chapter one.\n" +
	"\n" +
	"- Fruits:\n" +
	"  - apple\n" +
	"  - pear\n" +
	"- Vegetables\n" +
	"\n" +
	"> A quoted line\n" +
	"> that continues.\n" +
	"\n" +
	"```go\n" +
	"fmt.Println(\"hi\")\n" +
	"```\n" +
	"\n" +
	"| A | B |\n" +
	"|---|---|\n" +
	"| 1 | 2 |\n" +
	"\n" +
	"## Chapter Two\n" +
	"\n" +
	"Last paragraph.\n"

// result is what one run of the command printed.
type result struct {
	stdout, stderr string
	code           int
}

// writeBook writes testBook to a temp dir and returns its path.
func writeBook(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "book.md")
	if err := os.WriteFile(path, []byte(testBook), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// run executes the aite command line in-process with stdin.
func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := execute(args, strings.NewReader(stdin), &out, &errOut)
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// mustRun runs and fails the test unless the exit code is 0.
func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, "", args...)
	if r.code != 0 {
		t.Fatalf("aite %s: exit %d\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// wantFail runs and checks the exit code and that stderr holds every
// fragment; stdout must stay empty.
func wantFail(t *testing.T, code int, fragments []string, args ...string) result {
	t.Helper()
	r := run(t, "", args...)
	if r.code != code {
		t.Fatalf("aite %s: exit %d, want %d\nstderr: %s", strings.Join(args, " "), r.code, code, r.stderr)
	}
	for _, f := range fragments {
		if !strings.Contains(r.stderr, f) {
			t.Errorf("aite %s: stderr lacks %q:\n%s", strings.Join(args, " "), f, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("aite %s: stdout not empty on failure:\n%s", strings.Join(args, " "), r.stdout)
	}
	return r
}

// readFile returns a file's content.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decodeObject decodes a JSON object into a map.
func decodeObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, s)
	}
	return m
}

// wantKeys checks that a JSON object has exactly the given field names.
func wantKeys(t *testing.T, what string, v any, keys ...string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not a JSON object: %#v", what, v)
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Errorf("%s: fields %v, want %v", what, got, keys)
	}
}

// itemKeys are the stable field names of an item; level and containers
// are added when the item has them.
func itemKeys(extra ...string) []string {
	return append([]string{"pointer", "id", "label", "kind", "index", "markdown", "text"}, extra...)
}

// mustWrite writes a file.
func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
