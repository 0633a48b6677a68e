package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
)

func TestExcerpt(t *testing.T) {
	words := strings.Repeat("слово ", 30)
	cases := []struct {
		it   document.Item
		n    int
		want string
	}{
		{document.Item{Kind: document.Paragraph, Text: "  short\n text  "}, 80, "short text"},
		{document.Item{Kind: document.Heading, Level: 2, Text: "Title"}, 80, "## Title"},
		{document.Item{Kind: document.Table, Text: "A | B\n1 | 2"}, 80, "A | B / 1 | 2"},
		{document.Item{Kind: document.Paragraph, Text: words}, 20, "слово слово слово…"},
		{document.Item{Kind: document.Paragraph, Text: strings.Repeat("x", 30)}, 10, "xxxxxxxxx…"},
		{document.Item{Kind: document.Paragraph, Text: "abc, def ghi"}, 6, "abc…"},
	}
	for _, tc := range cases {
		got := Excerpt(&tc.it, tc.n)
		if got != tc.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tc.it.Text, tc.n, got, tc.want)
		}
		if utf8.RuneCountInString(got) > tc.n {
			t.Errorf("Excerpt(%q, %d) has %d runes", tc.it.Text, tc.n, utf8.RuneCountInString(got))
		}
	}
}

func TestExitCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("x"), ExitUsage},
		{Usagef("bad flag"), ExitUsage},
		{fmt.Errorf("wrapped: %w", ioErrorf("disk")), ExitIO},
		{&document.PointerError{Input: "x", Err: document.ErrNotFound}, ExitUsage},
		{fmt.Errorf("%w: refused", document.ErrHeading), ExitUsage},
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
	var ue *UsageError
	if _, err := ParseEditOp("move"); !errors.As(err, &ue) {
		t.Errorf("ParseEditOp(move) = %v, want a usage error", err)
	}
}
