package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// portion is one JSON line of `aite cursor --json`.
type portion struct {
	CursorName string `json:"cursorName"`
	Items      []struct {
		Pointer  string  `json:"pointer"`
		Kind     string  `json:"kind"`
		Level    int     `json:"level"`
		Index    int     `json:"index"`
		Markdown *string `json:"markdown"`
	} `json:"items"`
	HasMore          bool   `json:"hasMore"`
	Remaining        int    `json:"remaining"`
	NextAfterPointer string `json:"nextAfterPointer"`
}

// portions runs `aite cursor --json` and decodes its lines one by one,
// checking that hasMore is true on every portion but the last.
func portions(t *testing.T, args ...string) []portion {
	t.Helper()
	r := mustRun(t, append([]string{"cursor", "--json"}, args...)...)
	if !strings.HasSuffix(r.stdout, "\n") {
		t.Fatalf("output does not end a line: %q", r.stdout)
	}
	var out []portion
	for line := range strings.Lines(r.stdout) {
		var p portion
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("line %d: %v\n%s", len(out)+1, err, line)
		}
		out = append(out, p)
	}
	for i, p := range out {
		if p.HasMore != (i < len(out)-1) {
			t.Errorf("portion %d of %d: hasMore %v", i+1, len(out), p.HasMore)
		}
		if n := len(p.Items); n > 0 && p.NextAfterPointer != p.Items[n-1].Pointer {
			t.Errorf("portion %d: nextAfterPointer %q, last item %q", i+1, p.NextAfterPointer, p.Items[n-1].Pointer)
		}
	}
	return out
}

// cursorPointers returns the pointers of every item of every portion.
func cursorPointers(ps []portion) []string {
	var out []string
	for _, p := range ps {
		for _, it := range p.Items {
			out = append(out, it.Pointer)
		}
	}
	return out
}

func TestCursorJSONLines(t *testing.T) {
	path := writeSample(t)
	ps := portions(t, path, "--keywords", "Звёздочкин", "--max-elements", "5")
	if len(ps) != 6 || ps[0].CursorName != "kwd_cursor_0" {
		t.Fatalf("%d portions of %q, want 6 of kwd_cursor_0", len(ps), ps[0].CursorName)
	}
	r := mustRun(t, "cursor", "--json", path, "--keywords", "Звёздочкин", "--max-elements", "5")
	first, _, _ := strings.Cut(r.stdout, "\n")
	wantKeys(t, "portion", decodeObject(t, first), "cursorName", "items", "hasMore", "nextAfterPointer", "remaining")
	heading := decodeObject(t, first)["items"].([]any)[0]
	wantKeys(t, "heading", heading, "pointer", "kind", "level", "index", "markdown")
	if m := heading.(map[string]any); m["pointer"] != "1:1" || m["level"] != 1.0 || m["markdown"] != "# Звёздочкин и часы на башне" {
		t.Errorf("first item = %v", m)
	}
}

func TestCursorMatchesFind(t *testing.T) {
	path := writeSample(t)
	for _, tc := range []struct{ cursor, find []string }{
		{[]string{"--keywords", "Звёздочкин", "--no-headings"}, []string{"Звёздочкин"}},
		{[]string{"--keywords", "звездочкину"}, []string{"звездочкину", "--headings"}},
		{[]string{"--keywords", "Варя часы", "--no-headings"}, []string{"Варя", "часы"}},
		{[]string{"--keywords", "Варя", "--kind", "paragraph", "--within", "1.3"}, []string{"Варя", "--kind", "paragraph", "--within", "1.3"}},
	} {
		got := cursorPointers(portions(t, append([]string{path, "--max-bytes", "3000"}, tc.cursor...)...))
		want := findPointers(t, append([]string{path}, tc.find...)...)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("cursor %v = %v\nfind %v = %v", tc.cursor, got, tc.find, want)
		}
	}
	// Keywords are ORed across flags.
	got := cursorPointers(portions(t, path, "--keywords", "Штейна", "--keywords", "Кузовков", "--no-headings", "--max-elements", "200"))
	a, b := findPointers(t, path, "Штейна"), findPointers(t, path, "Кузовков")
	if len(got) <= max(len(a), len(b)) || len(got) > len(a)+len(b) {
		t.Errorf("OR: %d items from %d and %d", len(got), len(a), len(b))
	}
}

func TestCursorBackwardAndStartAfter(t *testing.T) {
	path := writeSample(t)
	fwd := cursorPointers(portions(t, path))
	back := cursorPointers(portions(t, path, "--backward"))
	if len(fwd) != 106 {
		t.Fatalf("a full scan has %d items, want 106", len(fwd))
	}
	slices.Reverse(back)
	if !slices.Equal(fwd, back) {
		t.Errorf("backward is not the reverse of forward")
	}
	ps := portions(t, path, "--start-after", "1.1p2", "--max-elements", "2")
	if got := cursorPointers(ps); got[0] != "6:1.1.p3" || len(got) != 106-5 {
		t.Errorf("--start-after 1.1p2: %d items from %s", len(got), got[0])
	}
	ps = portions(t, path, "--start-after", " 5:1.1.p2. ", "--backward")
	if got := cursorPointers(ps); !slices.Equal(got, []string{"4:1.1.p1", "3:1.1", "2:1.p1", "1:1"}) {
		t.Errorf("--start-after backward = %v", got)
	}
	wantFail(t, 1, []string{`pointer "1.1.p99"`, "nearest pointers:"}, "cursor", path, "--start-after", "1.1.p99")
}

func TestCursorLimits(t *testing.T) {
	path := writeSample(t)
	for _, n := range []string{"0", "201", "-1"} {
		wantFail(t, 1, []string{"maxElements must be between 1 and 200 (got " + n + ")"}, "cursor", path, "--max-elements", n)
	}
	for _, n := range []string{"0", "65537"} {
		wantFail(t, 1, []string{"maxBytes must be between 1 and 65536 (got " + n + ")"}, "cursor", path, "--max-bytes", n)
	}
	const limit = 600
	ps := portions(t, path, "--max-bytes", "600", "--max-elements", "200")
	oversized := 0
	for i, p := range ps {
		size := 0
		for _, it := range p.Items {
			size += len(*it.Markdown)
		}
		switch {
		case len(p.Items) == 0:
			t.Errorf("portion %d is empty", i+1)
		case size > limit && len(p.Items) == 1:
			oversized++
		case size > limit:
			t.Errorf("portion %d: %d items of %d bytes", i+1, len(p.Items), size)
		}
	}
	if oversized == 0 {
		t.Error("no item is larger than the limit: the test proves nothing")
	}
	if got := cursorPointers(ps); len(got) != 106 {
		t.Errorf("%d items in all", len(got))
	}
	for i, p := range portions(t, path, "--max-elements", "7") {
		if len(p.Items) > 7 {
			t.Errorf("portion %d has %d items", i+1, len(p.Items))
		}
	}
}

func TestCursorNoContentAndFilters(t *testing.T) {
	path := writeSample(t)
	r := mustRun(t, "cursor", "--json", path, "--no-content", "--max-elements", "200")
	if strings.Contains(r.stdout, `"markdown"`) || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("--no-content: %d lines, markdown present: %v", strings.Count(r.stdout, "\n"), strings.Contains(r.stdout, `"markdown"`))
	}
	for _, p := range portions(t, path, "--kind", "heading,table") {
		for _, it := range p.Items {
			if it.Kind != "Heading" && it.Kind != "Table" {
				t.Errorf("--kind: %s is a %s", it.Pointer, it.Kind)
			}
		}
	}
	if got := cursorPointers(portions(t, path, "--regex", `\d+:\d+`)); !slices.Equal(got, []string{"61:1.3.1.p2"}) {
		t.Errorf("--regex = %v", got)
	}
	got := cursorPointers(portions(t, path, "--within", "1.3.1"))
	if len(got) != 6 || got[0] != "59:1.3.1" {
		t.Errorf("--within = %v", got)
	}
	if got := cursorPointers(portions(t, path, "--no-headings", "--within", "1.3.1")); len(got) != 5 {
		t.Errorf("--no-headings --within = %v", got)
	}
	wantFail(t, 1, []string{"regex", "does not compile"}, "cursor", path, "--regex", "(")
	wantFail(t, 1, []string{"within must name a heading"}, "cursor", path, "--within", "1.1.p2")
	wantFail(t, 1, []string{"needs at least one keyword"}, "cursor", path, "--keywords", "—")
	missing := filepath.Join(t.TempDir(), "missing.md")
	wantFail(t, 2, []string{"book " + missing + " does not exist"}, "cursor", missing)
}

func TestCursorText(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "cursor", path, "--kind", "paragraph", "--max-elements", "3")
	want := "── portion 1: 3 items, 101 bytes ──\n" +
		"1:p1      Paragraph  Preamble paragraph before any heading.\n" +
		"3:1.p1    Paragraph  Intro paragraph with emphasis.\n" +
		"5:1.1.p1  Paragraph  First paragraph of chapter one.\n" +
		"── portion 2: 1 item, 15 bytes ──\n" +
		"14:1.2.p1  Paragraph  Last paragraph.\n"
	if r.stdout != want || r.stderr != "" {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr %q", r.stdout, want, r.stderr)
	}
	r = mustRun(t, "cursor", path, "--keywords", "apple", "--no-content")
	if r.stdout != "── portion 1: 1 item, 0 bytes ──\n7:1.1.p3  ListItem\n" {
		t.Errorf("--no-content:\n%q", r.stdout)
	}
	r = mustRun(t, "cursor", path, "--keywords", "kiwi")
	if r.stdout != "── portion 1: 0 items, 0 bytes ──\n" {
		t.Errorf("no match:\n%q", r.stdout)
	}
	r = mustRun(t, "cursor", "--json", path, "--keywords", "kiwi")
	if r.stdout != `{"cursorName":"kwd_cursor_0","items":[],"hasMore":false,"remaining":0}`+"\n" {
		t.Errorf("no match JSON: %q", r.stdout)
	}
	// Markdown keeps its <, > and &.
	mustWrite(t, path, "# T\n\nTom & <b>Jerry</b>\n")
	r = mustRun(t, "cursor", "--json", path, "--keywords", "jerry")
	if !strings.Contains(r.stdout, `"markdown":"Tom & <b>Jerry</b>"`) {
		t.Errorf("JSON: %s", r.stdout)
	}
}
