package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestItemsText(t *testing.T) {
	r := mustRun(t, "items", writeBook(t))
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 14 {
		t.Fatalf("%d lines, want 14:\n%s", len(lines), r.stdout)
	}
	for i, want := range map[int]string{
		0:  "1:p1       Paragraph  Preamble paragraph before any heading.",
		1:  "2:1        Heading    # Title",
		2:  "3:1.p1     Paragraph  Intro paragraph with emphasis.",
		6:  "7:1.1.p3   ListItem     apple",
		9:  "10:1.1.p6  Quote      > A quoted line that continues.",
		10: `11:1.1.p7  Code       fmt.Println("hi")`,
		11: "12:1.1.p8  Table      A | B / 1 | 2",
	} {
		if lines[i] != want {
			t.Errorf("line %d = %q, want %q", i, lines[i], want)
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr = %q, want nothing when the list is complete", r.stderr)
	}
}

func TestItemsExcerptIsOneShortLine(t *testing.T) {
	path := writeBook(t)
	long := strings.Repeat("слово ", 40) + "\nконец"
	mustWrite(t, path, "# T\n\n"+long+"\n")
	r := mustRun(t, "items", path, "--kind", "paragraph")
	line := strings.TrimSuffix(r.stdout, "\n")
	if strings.Contains(line, "\n") || !strings.HasSuffix(line, "…") {
		t.Errorf("excerpt line = %q, want one line ending in …", line)
	}
	if n := len([]rune(line)); n > len("3:1.p1  Paragraph  ")+80 {
		t.Errorf("line has %d runes: %q", n, line)
	}
}

func TestItemsKindFromLimit(t *testing.T) {
	path := writeBook(t)
	cases := []struct {
		args []string
		want []string // pointers
	}{
		{[]string{"--kind", "heading"}, []string{"2:1", "4:1.1", "13:1.2"}},
		{[]string{"--kind", "QUOTE,code", "--kind", "list_item"}, []string{"6:1.1.p2", "7:1.1.p3", "8:1.1.p4", "9:1.1.p5", "10:1.1.p6", "11:1.1.p7"}},
		{[]string{"--from", "1.1.p5", "--limit", "3"}, []string{"9:1.1.p5", "10:1.1.p6", "11:1.1.p7"}},
		{[]string{"--from", "13", "--kind", "paragraph"}, []string{"14:1.2.p1"}},
		{[]string{"--limit", "2"}, []string{"1:p1", "2:1"}},
	}
	for _, tc := range cases {
		r := mustRun(t, append([]string{"items", "--json", path}, tc.args...)...)
		var got struct {
			Items []struct {
				Pointer string `json:"pointer"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatal(err)
		}
		var ptrs []string
		for _, it := range got.Items {
			ptrs = append(ptrs, it.Pointer)
		}
		if strings.Join(ptrs, " ") != strings.Join(tc.want, " ") {
			t.Errorf("items %v = %v, want %v", tc.args, ptrs, tc.want)
		}
	}
}

func TestItemsNext(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "items", path, "--limit", "2")
	if r.stderr != "more items follow: continue with --from 3:1.p1\n" {
		t.Errorf("stderr = %q", r.stderr)
	}
	r = mustRun(t, "items", "--json", path, "--limit", "2", "--kind", "heading")
	if m := decodeObject(t, r.stdout); m["next"] != "13:1.2" {
		t.Errorf("next = %v, want 13:1.2", m["next"])
	}
	r = mustRun(t, "items", "--json", path, "--from", "13")
	if _, ok := decodeObject(t, r.stdout)["next"]; ok {
		t.Error("next is present at the end of the book")
	}
}

func TestItemsNoMatch(t *testing.T) {
	r := mustRun(t, "items", writeBook(t), "--kind", "footnote")
	if r.stdout != "" || r.stderr != "no items\n" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	r = mustRun(t, "items", "--json", writeBook(t), "--kind", "html")
	if strings.TrimSpace(r.stdout) != "{\n  \"items\": []\n}" {
		t.Errorf("JSON = %q, want an empty items array", r.stdout)
	}
}

func TestItemsBadFlags(t *testing.T) {
	path := writeBook(t)
	wantFail(t, 1, []string{"--limit must be between 1 and 10000 (got 0)", "aite items --help"}, "items", path, "--limit", "0")
	wantFail(t, 1, []string{"--limit must be between 1 and 10000 (got 10001)"}, "items", path, "--limit", "10001")
	wantFail(t, 1, []string{`unknown kind "para"`, "valid kinds: Heading, Paragraph, ListItem"}, "items", path, "--kind", "para")
	wantFail(t, 1, []string{"unknown flag: --bogus"}, "items", path, "--bogus")
	wantFail(t, 1, []string{"items takes 1 argument(s): BOOK.md"}, "items")
	wantFail(t, 1, []string{`pointer "1.9"`, "nearest pointers:", "14:1.2.p1  Paragraph  Last paragraph."}, "items", path, "--from", "1.9")
}

func TestItemsJSONFieldNames(t *testing.T) {
	r := mustRun(t, "items", "--json", writeBook(t), "--limit", "1", "--from", "7")
	m := decodeObject(t, r.stdout)
	wantKeys(t, "items", m, "items", "next")
	it := m["items"].([]any)[0]
	wantKeys(t, "list item", it, itemKeys("containers")...)
	want := map[string]any{"pointer": "7:1.1.p3", "id": 7.0, "label": "1.1.p3", "kind": "ListItem",
		"index": 6.0, "containers": "List>ListItem>List>ListItem", "markdown": "  - apple", "text": "apple"}
	for k, v := range want {
		if got := it.(map[string]any)[k]; got != v {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	r = mustRun(t, "items", "--json", writeBook(t), "--limit", "1", "--from", "2")
	h := decodeObject(t, r.stdout)["items"].([]any)[0]
	wantKeys(t, "heading", h, itemKeys("level")...)
}
