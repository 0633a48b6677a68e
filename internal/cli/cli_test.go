package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
)

func TestExitCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("x"), ExitUsage},
		{reading.Usagef("bad flag"), ExitUsage},
		{fmt.Errorf("wrapped: %w", ioErrorf("disk")), ExitIO},
		{&document.PointerError{Input: "x", Err: document.ErrNotFound}, ExitUsage},
		{fmt.Errorf("%w: refused", document.ErrHeading), ExitUsage},
		{fmt.Errorf("%w: %w", editor.ErrIO, errors.New("disk full")), ExitIO},
	}
	for _, tc := range cases {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestDiffName(t *testing.T) {
	for in, want := range map[string]string{"book.md": "book.md", "./a/../book.md": "book.md", "/tmp/x/book.md": "tmp/x/book.md"} {
		if got := diffName(in); got != want {
			t.Errorf("diffName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseEditOp(t *testing.T) {
	for in, want := range map[string]document.Op{"replace": document.OpReplace, "insert-before": document.OpInsertBefore,
		"insert_after": document.OpInsertAfter, "DELETE": document.OpDelete} {
		if got, err := ParseEditOp(in); err != nil || got != want {
			t.Errorf("ParseEditOp(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	var ue *reading.UsageError
	if _, err := ParseEditOp("move"); !errors.As(err, &ue) {
		t.Errorf("ParseEditOp(move) = %v, want a usage error", err)
	}
}

func TestRenameDiff(t *testing.T) {
	diff := "--- a//tmp/x/book.md\n+++ b//tmp/x/book.md\n@@ -1 +1 @@\n-a\n+b\n"
	want := "--- a/tmp/x/book.md\n+++ b/tmp/x/book.md\n@@ -1 +1 @@\n-a\n+b\n"
	if got := renameDiff(diff, "/tmp/x/book.md"); got != want {
		t.Errorf("renameDiff = %q, want %q", got, want)
	}
	if got := renameDiff("", "/tmp/x/book.md"); got != "" {
		t.Errorf("renameDiff of no diff = %q", got)
	}
}
