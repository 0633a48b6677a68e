package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/textnorm"
)

func TestExcerpt(t *testing.T) {
	words := strings.Repeat("слово ", 30)
	cases := []struct {
		it   editor.ItemView
		n    int
		want string
	}{
		{editor.ItemView{Kind: document.Paragraph, Text: "  short\n text  "}, 80, "short text"},
		{editor.ItemView{Kind: document.Heading, Level: 2, Text: "Title"}, 80, "## Title"},
		{editor.ItemView{Kind: document.Table, Text: "A | B\n1 | 2"}, 80, "A | B / 1 | 2"},
		{editor.ItemView{Kind: document.Paragraph, Text: words}, 20, "слово слово слово…"},
		{editor.ItemView{Kind: document.Paragraph, Text: strings.Repeat("x", 30)}, 10, "xxxxxxxxx…"},
		{editor.ItemView{Kind: document.Paragraph, Text: "abc, def ghi"}, 6, "abc…"},
	}
	for _, tc := range cases {
		got := Excerpt(tc.it, tc.n)
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
	var ue *UsageError
	if _, err := ParseEditOp("move"); !errors.As(err, &ue) {
		t.Errorf("ParseEditOp(move) = %v, want a usage error", err)
	}
}

func TestHighlight(t *testing.T) {
	long := strings.Repeat("слово ", 30)
	cases := []struct {
		kind  document.Kind
		level int
		text  string
		query string
		n     int
		want  string
	}{
		{document.Paragraph, 0, "Профессор Звёздочкин приехал.", "звездочкина", 80, "Профессор **Звёздочкин** приехал."},
		{document.Heading, 2, "Глава 1. Звёздочкин", "Звёздочкин", 80, "## Глава 1. **Звёздочкин**"},
		{document.Paragraph, 0, "Варя,  часы\nи Варе часами.", "варя часы", 80, "**Варя**, **часы** и **Варе** **часами**."},
		{document.Paragraph, 0, long + "конец текста " + long, "конец", 30, "…слово **конец** текста слово…"},
		{document.Paragraph, 0, "no match here at all", "zebra", 12, "no match…"},
		{document.Table, 0, "A | B\ncat | dog", "dogs", 80, "A | B / cat | **dog**"},
		{document.Paragraph, 0, strings.Repeat("x", 30), "x", 10, "xxxxxxxxx…"},
		{document.Paragraph, 0, "", "x", 10, ""},
	}
	for _, tc := range cases {
		got := Highlight(tc.kind, tc.level, tc.text, textnorm.NewMatcher(tc.query), tc.n)
		if got != tc.want {
			t.Errorf("Highlight(%q, %q, %d) = %q, want %q", tc.text, tc.query, tc.n, got, tc.want)
		}
		if n := utf8.RuneCountInString(strings.ReplaceAll(got, "**", "")); n > tc.n {
			t.Errorf("Highlight(%q, %q, %d) has %d runes", tc.text, tc.query, tc.n, n)
		}
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

func TestParseKinds(t *testing.T) {
	got, err := ParseKinds([]string{"heading, QUOTE", "list_item,heading", ""})
	if want := []document.Kind{document.Heading, document.Quote, document.ListItem}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseKinds = %v, %v; want %v", got, err, want)
	}
	var ue *UsageError
	if _, err := ParseKinds([]string{"para"}); !errors.As(err, &ue) {
		t.Errorf("ParseKinds(para) = %v, want a usage error", err)
	}
}

func TestCursorRequestSpec(t *testing.T) {
	base := CursorRequest{MaxElements: 20, MaxBytes: 100}
	for _, tc := range []struct {
		edit func(*CursorRequest)
		want cursor.Type
	}{
		{func(*CursorRequest) {}, cursor.FullScan},
		{func(r *CursorRequest) { r.Keywords = []string{"a"}; r.Regex = "b" }, cursor.Keyword},
		{func(r *CursorRequest) { r.Regex = "b" }, cursor.Filtered},
		{func(r *CursorRequest) { r.Within = "1" }, cursor.Filtered},
		{func(r *CursorRequest) { r.Kinds = []document.Kind{document.Code} }, cursor.Filtered},
	} {
		r := base
		tc.edit(&r)
		s, err := r.Spec()
		if err != nil || s.Type != tc.want || !s.IncludeContent || !s.IncludeHeadings {
			t.Errorf("%+v: spec %+v, %v; want type %s", r, s, err, tc.want)
		}
	}
	r := base
	r.NoContent, r.NoHeadings, r.MaxBytes = true, true, 0
	if _, err := r.Spec(); !errors.Is(err, cursor.ErrSpec) {
		t.Errorf("max bytes 0: %v", err)
	}
}
