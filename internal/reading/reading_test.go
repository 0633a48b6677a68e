package reading

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

func TestExcerpt(t *testing.T) {
	words := strings.Repeat("слово ", 30)
	cases := []struct {
		it   bookview.ItemView
		n    int
		want string
	}{
		{bookview.ItemView{Kind: document.Paragraph, Text: "  short\n text  "}, 80, "short text"},
		{bookview.ItemView{Kind: document.Heading, Level: 2, Text: "Title"}, 80, "## Title"},
		{bookview.ItemView{Kind: document.Table, Text: "A | B\n1 | 2"}, 80, "A | B / 1 | 2"},
		{bookview.ItemView{Kind: document.Paragraph, Text: words}, 20, "слово слово слово…"},
		{bookview.ItemView{Kind: document.Paragraph, Text: strings.Repeat("x", 30)}, 10, "xxxxxxxxx…"},
		{bookview.ItemView{Kind: document.Paragraph, Text: "abc, def ghi"}, 6, "abc…"},
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

func TestOneLineAndPlural(t *testing.T) {
	for in, want := range map[string]string{"": "", "a b": "a b", " a": "a", "a ": "a", "a  b": "a b", "a\tb\nc": "a b c",
		"Глава\u00a01": "Глава 1", "one": "one"} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
	for n, want := range map[int]string{0: "0 items", 1: "1 item", 2: "2 items", 1000: "1000 items"} {
		if got := Plural(n, "item"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
