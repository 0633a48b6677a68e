package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadOnlyBook(t *testing.T) {
	path := writeBook(t)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	wantFail(t, 2, []string{"is read-only: nothing was written", "chmod u+w", "--force"},
		"edit", path, "replace", "14", "--text", "Changed.")
	wantBook(t, path, testBook)
	mustRun(t, "edit", path, "replace", "14", "--text", "Changed.", "--force")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o444 {
		t.Errorf("mode %v, want -r--r--r--", fi.Mode().Perm())
	}
	wantFail(t, 2, []string{"read-only"}, "undo", path)
	mustRun(t, "undo", path, "--force")
	wantBook(t, path, testBook)
}

func TestByteOrderMarkBook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bom.md")
	mustWrite(t, path, "\xEF\xBB\xBF# Title\n\nText.\n")
	r := mustRun(t, "items", path)
	if !strings.HasPrefix(r.stdout, "1:1     Heading    # Title\n") {
		t.Fatalf("items:\n%s", r.stdout)
	}
	mustRun(t, "edit", path, "replace", "1:1", "--text", "New title")
	wantBook(t, path, "\xEF\xBB\xBF# New title\n\nText.\n")
}

func TestBooksThatAreNotUTF8(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"cp1251", "# \xc7\xe0\xef\xe8\xf1\xea\xe8\n\n\xdf \xf7\xe5\xeb\xee\xe2\xe5\xea \xe1\xee\xeb\xfc\xed\xee\xe9.\n",
			[]string{"is not UTF-8", "Windows-1251", "iconv -f WINDOWS-1251 -t UTF-8"}},
		{"binary", "# T\n\nab\x00cd\n", []string{"binary data", "line 3"}},
		{"utf-16", "\xff\xfe#\x00 \x00T\x00\n\x00", []string{"UTF-16"}},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), tt.name+".md")
		mustWrite(t, path, tt.content)
		for _, cmd := range [][]string{{"items", path}, {"find", path, "x"}, {"edit", path, "append", "--text", "x"}} {
			wantFail(t, 2, tt.want, cmd...)
		}
		wantBook(t, path, tt.content)
	}
}

func TestEmptyBookGetsItsFirstItem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.md")
	mustWrite(t, path, "")
	r := mustRun(t, "edit", path, "append", "--text", "# My Book")
	if !strings.Contains(r.stderr, "appended 1:1 → wrote") {
		t.Errorf("stderr %q", r.stderr)
	}
	mustRun(t, "edit", path, "append", "--text", "The first paragraph.")
	wantBook(t, path, "# My Book\n\nThe first paragraph.\n")
	wantFail(t, 1, []string{"headings cannot be added"}, "edit", path, "append", "--text", "## Chapter")
	wantFail(t, 1, []string{"append takes no POINTER"}, "edit", path, "append", "1", "--text", "x")
}

func TestDiffShowsTheChangedWordsOfALongParagraph(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.md")
	para := strings.Repeat("a long paragraph of many words ", 750) // ~23 KB on one line
	mustWrite(t, path, "# T\n\n"+para+"the end.\n")
	r := mustRun(t, "edit", path, "replace", "2", "--text", para+"the very end.", "--dry-run")
	if len(r.stdout) > 1000 || !strings.Contains(r.stdout, "+… ") || !strings.Contains(r.stdout, "the very end.") {
		t.Fatalf("%d bytes of diff:\n%.2000s", len(r.stdout), r.stdout)
	}
	wide := mustRun(t, "edit", path, "replace", "2", "--text", para+"the very end.", "--dry-run", "--context", "2000")
	if len(wide.stdout) < 4000 || len(wide.stdout) > 10000 {
		t.Errorf("--context 2000 gave %d bytes", len(wide.stdout))
	}
	j := mustRun(t, "--json", "edit", path, "replace", "2", "--text", para+"the very end.", "--dry-run")
	if !strings.Contains(j.stdout, para) {
		t.Error("the JSON diff is the whole diff")
	}
}
