package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/testbook"
)

// sedInPlace edits a file the way another program would: with sed -i when
// it is installed, else with the same replacement in Go.
func sedInPlace(t *testing.T, path, from, to string) {
	t.Helper()
	if _, err := exec.LookPath("sed"); err == nil {
		expr := "s/" + regexp.QuoteMeta(from) + "/" + strings.ReplaceAll(to, "/", `\/`) + "/g"
		if out, err := exec.Command("sed", "-i", expr, path).CombinedOutput(); err != nil {
			t.Fatalf("sed: %v: %s", err, out)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte(from), []byte(to)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstPointer returns the first pointer of a command's line output.
func firstPointer(t *testing.T, out string) string {
	t.Helper()
	f := strings.Fields(out)
	if len(f) == 0 {
		t.Fatalf("no pointer in %q", out)
	}
	return f[0]
}

// TestPointersNameTheSameItemInTheNextCommand is the workflow of the issue:
// a pointer printed by find stays the item's pointer after an insert before
// it (which moves its label), after another program's edit, and undo takes
// back aite edit too.
func TestPointersNameTheSameItemInTheNextCommand(t *testing.T) {
	path := writeBook(t)
	fruits := firstPointer(t, mustRun(t, "find", path, "Fruits").stdout) // 6:1.1.p2
	if fruits != "6:1.1.p2" {
		t.Fatalf("find Fruits = %s", fruits)
	}
	ins := mustRun(t, "edit", path, "insert-after", "5:1.1.p1", "--text", "Inserted before the list.")
	if !strings.HasPrefix(ins.stderr, "inserted 15:1.1.p2 after 5:1.1.p1") {
		t.Fatalf("insert: %s", ins.stderr)
	}
	// The label 1.1.p2 now names the new paragraph; the pointer find gave
	// still names the list item.
	r := mustRun(t, "edit", path, "replace", fruits, "--text", "- Fruits and nuts:")
	if !strings.Contains(r.stderr, "6:1.1.p2 is now 6:1.1.p3") || !strings.Contains(r.stdout, "+- Fruits and nuts:") {
		t.Fatalf("replace %s: stdout %s stderr %s", fruits, r.stdout, r.stderr)
	}
	book := readFile(t, path)
	if !strings.Contains(book, "Inserted before the list.\n\n- Fruits and nuts:\n") {
		t.Fatalf("the wrong item was edited:\n%s", book)
	}
	// The pointer the insert printed also holds.
	if r := mustRun(t, "read", path, "15:1.1.p2"); !strings.Contains(r.stdout, "Inserted before the list.") {
		t.Fatalf("read 15:1.1.p2: %s", r.stdout)
	}

	// Undo covers aite edit, two levels deep, with the IDs back.
	mustRun(t, "undo", path)
	mustRun(t, "undo", path)
	wantBook(t, path, testBook)
	wantFail(t, 1, []string{`pointer "15:1.1.p2"`, "no longer exists"}, "read", path, "15:1.1.p2")
	if r := mustRun(t, "read", path, fruits); r.stderr != "" || !strings.Contains(r.stdout, "── ▶ 6:1.1.p2 ListItem") {
		t.Fatalf("read %s after undo: %q %q", fruits, r.stdout, r.stderr)
	}

	// Another program rewrites one paragraph and adds one at the top.
	sedInPlace(t, path, "Intro paragraph", "Opening paragraph")
	sedInPlace(t, path, "Preamble paragraph before any heading.", "Added by hand.\\n\\nPreamble paragraph before any heading.")
	r = mustRun(t, "read", path, fruits)
	if !strings.Contains(r.stdout, "── ▶ 6:1.1.p2 ListItem") || !strings.Contains(r.stderr, "2 items are new or rewritten") {
		t.Fatalf("read %s after sed: %q %q", fruits, r.stdout, r.stderr)
	}
	// The rewritten paragraph's old pointer is refused with candidates,
	// never taken for another item.
	wantFail(t, 1, []string{`pointer "3:1.p1"`, "no longer exists", "nearest pointers:", "Opening paragraph"},
		"edit", path, "replace", "3:1.p1", "--text", "Lost?")
	if r := mustRun(t, "read", path, "14:1.2.p1"); !strings.Contains(r.stdout, "Last paragraph.") {
		t.Fatalf("an unchanged item lost its pointer: %s", r.stdout)
	}
}

// TestPointersOnARealBookWithSed runs the workflow on the shared Russian
// book: pointers printed by find, an insert before one of them, sed between
// commands, then an edit with the pointer find printed first.
func TestPointersOnARealBookWithSed(t *testing.T) {
	src := testbook.Books(t)["zapiski_iz_podpolia.md"]
	path := filepath.Join(t.TempDir(), "z.md")
	mustWrite(t, path, string(src))
	var target, targetText string
	for _, line := range strings.Split(strings.TrimSpace(mustRun(t, "find", path, "Аполлон").stdout), "\n")[3:] {
		p := firstPointer(t, line)
		if md := mustRun(t, "read", path, p).stdout; !strings.Contains(md, "Зверков") {
			target, targetText = p, md[strings.Index(md, "\n")+1:]
			break
		}
	}
	zverkov := firstPointer(t, mustRun(t, "find", path, "Зверков").stdout)

	mustRun(t, "edit", path, "insert-before", target, "--text", "Вставленный абзац.")
	sedInPlace(t, path, "Зверков", "Зверьков") // another program rewrites many items

	r := mustRun(t, "read", path, target)
	if got := r.stdout[strings.Index(r.stdout, "\n")+1:]; got != targetText {
		t.Fatalf("read %s after an insert and sed:\n%s\nwant:\n%s", target, got, targetText)
	}
	if !strings.Contains(r.stderr, "is now") {
		t.Errorf("no note that the label moved: %q", r.stderr)
	}
	wantFail(t, 1, []string{"no longer exists", "nearest pointers"}, "read", path, zverkov)
	rep := mustRun(t, "edit", path, "replace", target, "--text", "Заменённый абзац.")
	if !strings.Contains(rep.stdout, "+Заменённый абзац.") {
		t.Fatalf("replace: %s", rep.stdout)
	}
	got := readFile(t, path)
	if strings.Contains(got, strings.TrimSpace(targetText)) || !strings.Contains(got, "Вставленный абзац.\n\nЗаменённый абзац.") {
		t.Fatal("the paragraph find printed first was not the one replaced")
	}
}
