package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/editor"
)

func TestEditJSON(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "edit", "--json", path, "insert-after", "7:1.1.p3", "--text", "kiwi")
	m := decodeObject(t, r.stdout)
	wantKeys(t, "edit", m, "op", "target", "pointer", "markdownBefore", "markdownAfter", "diff", "written", "path", "backup")
	var got struct {
		Op             string `json:"op"`
		Target         string `json:"target"`
		Pointer        string `json:"pointer"`
		MarkdownBefore string `json:"markdownBefore"`
		MarkdownAfter  string `json:"markdownAfter"`
		Diff           string `json:"diff"`
		Written        bool   `json:"written"`
		Path           string `json:"path"`
		Backup         string `json:"backup"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Op != "insert_after" || got.Target != "7:1.1.p3" || got.Pointer != "15:1.1.p4" ||
		got.MarkdownBefore != "" || got.MarkdownAfter != "  - kiwi" || !got.Written ||
		got.Path != path || got.Backup != path+".bak" || !strings.Contains(got.Diff, "+  - kiwi\n") {
		t.Errorf("edit JSON = %+v", got)
	}
	// The pointer reported is the one the next command sees.
	r = mustRun(t, "read", path, got.Pointer)
	if r.stdout != "── ▶ 15:1.1.p4 ListItem ──\n  - kiwi\n" || r.stderr != "" {
		t.Errorf("read %s: stdout %q, stderr %q", got.Pointer, r.stdout, r.stderr)
	}
}

func TestEditJSONDryRun(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "edit", "--json", path, "replace", "14", "--text", "Changed.", "--dry-run")
	m := decodeObject(t, r.stdout)
	wantKeys(t, "dry run", m, "op", "target", "pointer", "markdownBefore", "markdownAfter", "diff", "written", "path")
	if m["written"] != false || m["markdownBefore"] != "Last paragraph." || m["markdownAfter"] != "Changed." {
		t.Errorf("dry run JSON = %v", m)
	}
	if !strings.HasPrefix(r.stderr, "dry run: ") {
		t.Errorf("stderr = %q", r.stderr)
	}
	wantBook(t, path, testBook)
}

// forget deletes the record of a book's item IDs, as a user may.
func forget(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(editor.StateDir(path)); err != nil {
		t.Fatal(err)
	}
}

func TestStalePointerAfterTheRecordIsDeleted(t *testing.T) {
	path := writeBook(t)
	mustRun(t, "edit", path, "insert-before", "5", "--text", "A new paragraph.")
	forget(t, path) // the items are numbered afresh on the next read
	// 14:1.2.p1 was listed before: ID 14 is now the heading 1.2.
	r := wantFail(t, 1, []string{`pointer "14:1.2.p1"`, "the ID 14 now names 14:1.2",
		"the label 1.2.p1 names 15:1.2.p1", "list the items again", "15:1.2.p1  Paragraph  Last paragraph."},
		"edit", path, "delete", "14:1.2.p1")
	if !strings.Contains(r.stderr, "nearest pointers:\n  14:1.2     Heading    ## Chapter Two\n") {
		t.Errorf("stderr lacks the nearest items:\n%s", r.stderr)
	}
	afterInsert := strings.Replace(testBook, "First paragraph", "A new paragraph.\n\nFirst paragraph", 1)
	wantBook(t, path, afterInsert)
	wantBook(t, path+".bak", testBook)

	forget(t, path)
	r = mustRun(t, "read", path, "14:1.2.p1")
	if !strings.Contains(r.stderr, "aite: warning: pointer \"14:1.2.p1\"") || !strings.HasPrefix(r.stdout, "── ▶ 14:1.2 Heading ──") {
		t.Errorf("read a stale pointer: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	forget(t, path)
	r = mustRun(t, "items", path, "--from", "14:1.2.p1", "--limit", "1")
	if !strings.Contains(r.stderr, "warning") {
		t.Errorf("items --from a stale pointer: stderr %q", r.stderr)
	}
}

func TestStalePointerWithANumberLabel(t *testing.T) {
	path := writeBook(t)
	mustRun(t, "edit", path, "insert-before", "1:", "--text", "A new first paragraph.")
	forget(t, path)
	// 2:1 (the title) was listed before the insert: ID 2 is now the old
	// preamble, and the label 1 (not the ID 1) names the title.
	wantFail(t, 1, []string{`pointer "2:1"`, "the ID 2 now names 2:p2", "the label 1 names 3:1"},
		"edit", path, "replace", "2:1", "--text", "# New title")
}
