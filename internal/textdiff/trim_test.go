package textdiff

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTrim(t *testing.T) {
	long := strings.Repeat("слово за словом тянется длинный абзац ", 600) // ~23 KB
	old := []byte("# T\n\n" + long + "конец.\n\nДругой абзац.\n")
	edited := []byte("# T\n\n" + long + "самый конец.\n\nДругой абзац.\n")
	full := Unified("a/b.md", "b/b.md", old, edited, 3)
	got := Trim(full, 60)
	if len(full) < 40000 || len(got) > 600 {
		t.Fatalf("full %d bytes, trimmed %d bytes:\n%s", len(full), len(got), got)
	}
	for _, want := range []string{"--- a/b.md\n", "+++ b/b.md\n", "@@ -1,5 +1,5 @@\n", " # T\n", "-… ", "конец.\n", "+… ", "самый конец.\n", " Другой абзац.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("trimmed diff lacks %q:\n%s", want, got)
		}
	}
	if !utf8.ValidString(got) {
		t.Error("not valid UTF-8")
	}
	wider := Trim(full, 400)
	if len(wider) <= len(got) {
		t.Errorf("a wider context is no longer: %d vs %d", len(wider), len(got))
	}
	short := Unified("a", "b", []byte("one\ntwo\n"), []byte("one\nthree\n"), 3)
	if Trim(short, 60) != short {
		t.Errorf("short lines changed:\n%s", Trim(short, 60))
	}
	// A long context line keeps both ends.
	ctx := Unified("a", "b", []byte(long+"\nx\n"), []byte(long+"\ny\n"), 3)
	if got := Trim(ctx, 30); len(got) > 300 || !strings.Contains(got, " … ") {
		t.Errorf("context line:\n%s", got)
	}
}
