package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantBook checks the book's bytes.
func wantBook(t *testing.T, path, want string) {
	t.Helper()
	if got := readFile(t, path); got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", path, got, want)
	}
}

// noFile checks that path does not exist.
func noFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists (err %v), want no file", path, err)
	}
}

func TestEditDryRun(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "edit", path, "replace", "5:1.1.p1", "--text", "New first paragraph.", "--dry-run")
	name := strings.TrimPrefix(filepath.ToSlash(path), "/")
	want := "--- a/" + name + "\n+++ b/" + name + "\n@@ -6,7 +6,7 @@\n \n ## Chapter One\n \n" +
		"-First paragraph of chapter one.\n+New first paragraph.\n \n - Fruits:\n   - apple\n"
	if r.stdout != want {
		t.Errorf("diff:\n%s\nwant:\n%s", r.stdout, want)
	}
	if r.stderr != "dry run: replaced 5:1.1.p1 → nothing written\n" {
		t.Errorf("stderr = %q", r.stderr)
	}
	for _, args := range [][]string{
		{"insert-before", "10", "--text", "Inserted."},
		{"insert-after", "1.1.p3", "--text", "kiwi"},
		{"delete", "8:1.1.p4"},
	} {
		r := mustRun(t, append([]string{"edit", path}, append(args, "--dry-run")...)...)
		if !strings.Contains(r.stdout, "@@") || !strings.HasPrefix(r.stderr, "dry run: ") {
			t.Errorf("%v: stdout %q, stderr %q", args, r.stdout, r.stderr)
		}
	}
	wantBook(t, path, testBook)
	noFile(t, path+".bak")
}

func TestEditReplaceWrites(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "edit", path, "replace", "1.1.p1", "--text", "New first paragraph.")
	if !strings.Contains(r.stdout, "-First paragraph of chapter one.\n+New first paragraph.\n") {
		t.Errorf("diff:\n%s", r.stdout)
	}
	if want := "replaced 5:1.1.p1 → wrote " + path + " (backup " + path + ".bak)\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	wantBook(t, path, strings.Replace(testBook, "First paragraph of chapter one.", "New first paragraph.", 1))
	wantBook(t, path+".bak", testBook)
}

func TestEditInsertAndDeleteWrite(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "edit", path, "insert-after", "7", "--text", "kiwi")
	if want := "inserted 15:1.1.p4 after 7:1.1.p3 → wrote " + path + " (backup " + path + ".bak)\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	afterInsert := strings.Replace(testBook, "  - apple\n", "  - apple\n  - kiwi\n", 1)
	wantBook(t, path, afterInsert)
	wantBook(t, path+".bak", testBook)

	r = mustRun(t, "edit", path, "insert-before", "1.1.p1", "--text", "A new paragraph.")
	if want := "inserted 16:1.1.p1 before 5:1.1.p2 → wrote "; !strings.HasPrefix(r.stderr, want) {
		t.Errorf("stderr = %q, want it to start with %q", r.stderr, want)
	}
	afterInsert2 := strings.Replace(afterInsert, "First paragraph", "A new paragraph.\n\nFirst paragraph", 1)
	wantBook(t, path, afterInsert2)
	wantBook(t, path+".bak", afterInsert)

	r = mustRun(t, "edit", path, "delete", "16:1.1.p1")
	if want := "deleted 16:1.1.p1 → wrote "; !strings.HasPrefix(r.stderr, want) {
		t.Errorf("stderr = %q, want it to start with %q", r.stderr, want)
	}
	wantBook(t, path, afterInsert)
}

func TestEditOutputAndNoBackup(t *testing.T) {
	path := writeBook(t)
	out := filepath.Join(t.TempDir(), "out.md")
	r := mustRun(t, "edit", path, "delete", "8", "-o", out)
	if want := "deleted 8:1.1.p4 → wrote " + out + " (no backup)\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	edited := strings.Replace(testBook, "  - pear\n", "", 1)
	wantBook(t, path, testBook)
	wantBook(t, out, edited)
	noFile(t, out+".bak")
	noFile(t, path+".bak")

	// A second edit into the existing output backs it up.
	mustRun(t, "edit", path, "delete", "7", "--output", out)
	wantBook(t, out+".bak", edited)

	r = mustRun(t, "edit", path, "delete", "8", "--no-backup")
	if want := "deleted 8:1.1.p4 → wrote " + path + " (no backup)\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	wantBook(t, path, edited)
	noFile(t, path+".bak")
}

func TestEditTextFromFileAndStdin(t *testing.T) {
	path := writeBook(t)
	text := filepath.Join(t.TempDir(), "new.md")
	mustWrite(t, text, "Paragraph from a file.\n")
	mustRun(t, "edit", path, "replace", "14", "--file", text)
	wantBook(t, path, strings.Replace(testBook, "Last paragraph.", "Paragraph from a file.", 1))

	r := run(t, "From *stdin*.\n", "edit", path, "replace", "14", "--file", "-", "--no-backup")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	wantBook(t, path, strings.Replace(testBook, "Last paragraph.", "From *stdin*.", 1))

	wantFail(t, 2, []string{"text file " + text + "x does not exist"}, "edit", path, "replace", "14", "--file", text+"x")
}

func TestEditRefused(t *testing.T) {
	path := writeBook(t)
	r := wantFail(t, 1, []string{"4:1.1 is a heading", "Replace its text instead"}, "edit", path, "delete", "4:1.1")
	if strings.Contains(r.stderr, "--help") {
		t.Errorf("a refused edit is not a usage error:\n%s", r.stderr)
	}
	wantFail(t, 1, []string{"headings cannot be added"}, "edit", path, "replace", "10", "--text", "# Heading")
	wantFail(t, 1, []string{"more than one block"}, "edit", path, "insert-after", "5", "--text", "a\n\nb")
	wantFail(t, 1, []string{"also holds"}, "edit", path, "delete", "6")
	wantFail(t, 1, []string{"empty"}, "edit", path, "replace", "5", "--text", "")
	r = wantFail(t, 1, nil, "edit", "--json", path, "delete", "2")
	wantKeys(t, "refusal", decodeObject(t, r.stderr), "error")
	wantBook(t, path, testBook)
	noFile(t, path+".bak")
}

func TestEditBadUsage(t *testing.T) {
	path := writeBook(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"replace", "5"}, "replace needs the new Markdown: give --text TEXT or --file FILE"},
		{[]string{"insert-after", "5", "--text", "x", "--file", "y"}, "either --text or --file, not both"},
		{[]string{"delete", "5", "--text", "x"}, "delete takes no text"},
		{[]string{"frob", "5"}, `unknown operation "frob"; valid operations: replace, insert-before, insert-after, delete`},
		{[]string{"delete"}, "edit takes 3 argument(s)"},
		{[]string{"delete", "99"}, "no item has the ID 99"},
	}
	for _, tc := range cases {
		wantFail(t, 1, []string{tc.want}, append([]string{"edit", path}, tc.args...)...)
	}
	wantBook(t, path, testBook)
}

func TestEditUnwritable(t *testing.T) {
	path := writeBook(t)
	out := filepath.Join(t.TempDir(), "missing-dir", "out.md")
	r := run(t, "", "edit", path, "delete", "8", "-o", out)
	if r.code != 2 || !strings.Contains(r.stderr, "cannot write "+out) {
		t.Errorf("exit %d, stderr %q; want 2 and a write error", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing when the write fails", r.stdout)
	}
	wantBook(t, path, testBook)
}

func TestEditNoChange(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "edit", path, "replace", "14", "--text", "Last paragraph.")
	if r.stdout != "" || r.stderr != "replaced 14:1.2.p1 → no change, nothing written\n" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	noFile(t, path+".bak")
}

func TestEditThroughSymlink(t *testing.T) {
	path := writeBook(t)
	link := filepath.Join(t.TempDir(), "link.md")
	if err := os.Symlink(path, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	r := mustRun(t, "edit", link, "delete", "8")
	if want := "deleted 8:1.1.p4 → wrote " + link + " (backup " + path + ".bak)\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	wantBook(t, path+".bak", testBook)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
}
