package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writeSample copies examples/zvezdochkin.md to a temp dir.
func writeSample(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "zvezdochkin.md")
	mustWrite(t, path, string(src))
	return path
}

// findHit is one result of `find --json`.
type findHit struct {
	Pointer string   `json:"pointer"`
	ID      int      `json:"id"`
	Label   string   `json:"label"`
	Kind    string   `json:"kind"`
	Index   int      `json:"index"`
	Score   *float64 `json:"score"`
	Snippet string   `json:"snippet"`
	Text    string   `json:"text"`
}

// findJSON runs `find --json` and decodes its results.
func findJSON(t *testing.T, args ...string) (mode, query string, hits []findHit) {
	t.Helper()
	r := mustRun(t, append([]string{"find", "--json"}, args...)...)
	var got struct {
		Mode    string    `json:"mode"`
		Query   string    `json:"query"`
		Results []findHit `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("find %v: %v\n%s", args, err, r.stdout)
	}
	if got.Results == nil {
		t.Fatalf("find %v: results is not an array:\n%s", args, r.stdout)
	}
	return got.Mode, got.Query, got.Results
}

// findPointers runs `find --json` and returns the result pointers.
func findPointers(t *testing.T, args ...string) []string {
	t.Helper()
	_, _, hits := findJSON(t, args...)
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Pointer
	}
	return out
}

// firstColumn returns the first field of each stdout line.
func firstColumn(stdout string) []string {
	var out []string
	for line := range strings.Lines(stdout) {
		out = append(out, strings.Fields(line)[0])
	}
	return out
}

func TestFindKeywordInlineBook(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "find", path, "paragraphs")
	want := "1:p1       Paragraph  Preamble **paragraph** before any heading.\n" +
		"3:1.p1     Paragraph  Intro **paragraph** with emphasis.\n" +
		"5:1.1.p1   Paragraph  First **paragraph** of chapter one.\n" +
		"14:1.2.p1  Paragraph  Last **paragraph**.\n"
	if r.stdout != want || r.stderr != "4 items\n" {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr %q", r.stdout, want, r.stderr)
	}
	if got := findPointers(t, path, "chapter"); !slices.Equal(got, []string{"5:1.1.p1"}) {
		t.Errorf("chapter = %v, want the paragraph only (headings excluded)", got)
	}
	if got := findPointers(t, path, "chapter", "--headings"); !slices.Equal(got, []string{"4:1.1", "5:1.1.p1", "13:1.2"}) {
		t.Errorf("chapter --headings = %v", got)
	}
	r = mustRun(t, "find", path, "chapter", "--headings")
	if !strings.HasPrefix(r.stdout, "4:1.1     Heading    ## **Chapter** One\n") {
		t.Errorf("a heading line shows its level:\n%s", r.stdout)
	}
}

func TestFindKeywordStemsAndYo(t *testing.T) {
	path := writeSample(t)
	yo := findPointers(t, path, "Звёздочкин")
	ye := findPointers(t, path, "звездочкин")
	if !slices.Equal(yo, ye) {
		t.Fatalf("ё and е differ:\n%v\n%v", yo, ye)
	}
	for _, p := range []string{
		"6:1.1.p3",    // ЗВЕЗДОЧКИНУ, upper case with е
		"33:1.1.p30",  // Звёздочкина
		"74:1.3.2.p9", // Звездочкин written with е
		"83:1.4.p4",   // Звёздочкину
	} {
		if !slices.Contains(yo, p) {
			t.Errorf("%s is missing from %v", p, yo)
		}
	}
	if len(yo) != 24 || yo[0] != "6:1.1.p3" {
		t.Errorf("%d results starting at %s, want 24 from 6:1.1.p3 (the headings are left out)", len(yo), yo[0])
	}
	if !slices.IsSortedFunc(indexes(t, path, "Звёздочкин"), func(a, b int) int { return a - b }) {
		t.Error("keyword results are not in document order")
	}
	// The name is first met in the headings.
	all := findPointers(t, path, "Звездочкина", "--headings")
	if len(all) != 26 || all[0] != "1:1" || all[1] != "3:1.1" || !slices.Equal(all[2:], yo) {
		t.Errorf("--headings = %v", all)
	}
	r := mustRun(t, "find", path, "звёздочкину")
	if !strings.Contains(r.stdout, "33:1.1.p30   Paragraph  …духа. Он усадил **Звёздочкина** во главе стола") ||
		!strings.Contains(r.stdout, "**ЗВЕЗДОЧКИНУ**") || r.stderr != "24 items\n" {
		t.Errorf("text output:\n%s\nstderr %q", r.stdout, r.stderr)
	}
}

// indexes runs `find --json` and returns the result indexes.
func indexes(t *testing.T, args ...string) []int {
	t.Helper()
	_, _, hits := findJSON(t, args...)
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.Index
	}
	return out
}

func TestFindKeywordAllWords(t *testing.T) {
	path := writeSample(t)
	both := findPointers(t, path, "Варя", "часы")
	varya, clocks := findPointers(t, path, "Варя"), findPointers(t, path, "часы")
	var want []string
	for _, p := range varya {
		if slices.Contains(clocks, p) {
			want = append(want, p)
		}
	}
	if len(both) == 0 || !slices.Equal(both, want) {
		t.Errorf("Варя часы = %v, want the items of both %v", both, want)
	}
	if len(both) >= len(varya) || len(both) >= len(clocks) {
		t.Errorf("AND does not narrow: %d, %d, %d", len(both), len(varya), len(clocks))
	}
	mode, query, _ := findJSON(t, path, "Варя", "часы")
	if mode != "keyword" || query != "Варя часы" {
		t.Errorf("mode %q, query %q", mode, query)
	}
}

func TestFindExact(t *testing.T) {
	path := writeSample(t)
	mode, _, hits := findJSON(t, path, "--exact", "ЧАСЫ на", "башне")
	if mode != "exact" || len(hits) != 2 || hits[0].Pointer != "61:1.3.1.p2" || hits[1].Pointer != "105:1.5.p9" {
		t.Fatalf("exact %s = %+v", mode, hits)
	}
	if !strings.Contains(hits[1].Snippet, "**Часы на башне**") {
		t.Errorf("snippet = %q", hits[1].Snippet)
	}
	if got := findPointers(t, path, "--exact", "часы на башне", "--headings"); len(got) != 3 || got[0] != "1:1" {
		t.Errorf("--exact --headings = %v", got)
	}
	// The words of the phrase must be consecutive; punctuation between
	// them does not count.
	if got := findPointers(t, path, "--exact", "часы башне"); len(got) != 0 {
		t.Errorf("--exact without the word between = %v", got)
	}
	if got := findPointers(t, path, "часы башне"); len(got) != 9 {
		t.Errorf("keyword mode: %d items, want 9", len(got))
	}
	if got := findPointers(t, path, "--exact", "башне. Часы"); !slices.Equal(got, []string{"2:1.p1"}) {
		t.Errorf("--exact across a full stop = %v", got)
	}
	r := mustRun(t, "find", path, "--exact", "часы на башне")
	if !strings.HasPrefix(r.stdout, "61:1.3.1.p2  Table      Хронометр | **Часы на башне** |") || r.stderr != "2 items\n" {
		t.Errorf("stdout:\n%s\nstderr %q", r.stdout, r.stderr)
	}
}

func TestFindRanked(t *testing.T) {
	path := writeSample(t)
	mode, _, hits := findJSON(t, path, "--ranked", "Варя", "часы", "--limit", "5")
	if mode != "ranked" || len(hits) != 5 {
		t.Fatalf("ranked %s: %d hits", mode, len(hits))
	}
	for i, h := range hits {
		if h.Score == nil || *h.Score <= 0 || !strings.Contains(h.Snippet, "**") {
			t.Errorf("hit %d = %+v", i, h)
		}
		if i > 0 && *h.Score > *hits[i-1].Score {
			t.Errorf("hit %d scores %.3f above hit %d (%.3f)", i, *h.Score, i-1, *hits[i-1].Score)
		}
	}
	if hits[0].Pointer != "68:1.3.2.p3" {
		t.Errorf("best hit = %s, want 68:1.3.2.p3", hits[0].Pointer)
	}
	// Any word suffices: more items than the keyword mode's AND.
	if all := findPointers(t, path, "--ranked", "Варя", "часы", "--limit", "1000"); len(all) <= len(findPointers(t, path, "Варя", "часы")) {
		t.Errorf("ranked finds %d items", len(all))
	}
	r := mustRun(t, "find", path, "--ranked", "Варя", "часы", "--limit", "5")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	score := regexp.MustCompile(`^\S+\s+\S+\s+(\d+\.\d\d)  `)
	for i, line := range lines {
		m := score.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %q has no score", line)
		}
		if want := strconv.FormatFloat(*hits[i].Score, 'f', 2, 64); m[1] != want {
			t.Errorf("line %d score %s, want %s", i, m[1], want)
		}
	}
	if r.stderr != "5 items (--limit 5 reached: there may be more)\n" {
		t.Errorf("stderr = %q", r.stderr)
	}
	if got := findPointers(t, path, "--ranked", "часы"); len(got) != 20 {
		t.Errorf("the default limit gives %d items, want 20", len(got))
	}
}

func TestFindKindAndWithin(t *testing.T) {
	path := writeSample(t)
	_, _, hits := findJSON(t, path, "часы", "--kind", "table,LIST_ITEM")
	kinds := map[string]bool{}
	for _, h := range hits {
		kinds[h.Kind] = true
	}
	if len(hits) == 0 || len(kinds) != 2 || !kinds["Table"] || !kinds["ListItem"] {
		t.Errorf("--kind: %d hits of kinds %v", len(hits), kinds)
	}
	for _, args := range [][]string{{"Варя"}, {"--exact", "Варя"}, {"--ranked", "Варя"}} {
		got := findPointers(t, append([]string{path, "--within", "1.3", "--headings"}, args...)...)
		if len(got) == 0 {
			t.Errorf("%v --within 1.3: nothing", args)
		}
		for _, p := range got {
			if !strings.Contains(p, ":1.3.") {
				t.Errorf("%v --within 1.3: %s is outside the section", args, p)
			}
		}
	}
	if got := findPointers(t, path, "Варя", "--within", "1.3.1"); !slices.Equal(got, []string{"60:1.3.1.p1", "64:1.3.1.p5"}) {
		t.Errorf("--within 1.3.1 = %v", got)
	}
}

func TestFindJSONFieldNames(t *testing.T) {
	path := writeSample(t)
	for _, tc := range []struct {
		args []string
		keys []string
	}{
		{[]string{"Варя"}, []string{"text"}},
		{[]string{"--exact", "Варя"}, []string{"snippet"}},
		{[]string{"--ranked", "Варя"}, []string{"score", "snippet"}},
	} {
		r := mustRun(t, append([]string{"find", "--json", path}, tc.args...)...)
		m := decodeObject(t, r.stdout)
		wantKeys(t, "find", m, "mode", "query", "results", "limitReached")
		hit := m["results"].([]any)[0]
		wantKeys(t, "result", hit, append([]string{"pointer", "id", "label", "kind", "index"}, tc.keys...)...)
	}
	if few := decodeObject(t, mustRun(t, "find", "--json", "--ranked", path, "Штейн").stdout); few["limitReached"] != false {
		t.Errorf("4 hits under the default limit: limitReached = %v", few["limitReached"])
	}
	cut := decodeObject(t, mustRun(t, "find", "--json", path, "Варя", "--limit", "1").stdout)
	if cut["limitReached"] != true {
		t.Errorf("--limit 1: limitReached = %v; --json must say the limit may have cut the list, as the text does", cut["limitReached"])
	}
	_, _, hits := findJSON(t, path, "Звёздочкина")
	if h := hits[0]; h.ID != 6 || h.Label != "1.1.p3" || h.Kind != "Code" || h.Index != 5 || !strings.Contains(h.Text, "ЗВЕЗДОЧКИНУ") {
		t.Errorf("first hit = %+v", h)
	}
}

func TestFindNothing(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "find", path, "nonexistentword")
	if r.stdout != "" || r.stderr != "no items match\n" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if _, _, hits := findJSON(t, path, "--ranked", "nonexistentword"); len(hits) != 0 {
		t.Errorf("hits = %v", hits)
	}
}

func TestFindErrors(t *testing.T) {
	path := writeSample(t)
	r := wantFail(t, 1, []string{`pointer "1.9"`, "nearest pointers:", "105:1.5.p9"}, "find", path, "Варя", "--within", "1.9")
	if strings.Contains(r.stderr, "--help") {
		t.Errorf("a bad pointer is not a usage error:\n%s", r.stderr)
	}
	for _, mode := range []string{"--exact", "--ranked"} {
		wantFail(t, 1, []string{`pointer "1.9"`, "nearest pointers:"}, "find", path, "Варя", mode, "--within", "1.9")
	}
	r = wantFail(t, 1, nil, "find", "--json", path, "Варя", "--within", "1.9")
	if m := decodeObject(t, r.stderr); len(m["nearest"].([]any)) == 0 {
		t.Errorf("JSON error without nearest pointers: %v", m)
	}
	wantFail(t, 1, []string{"must name a heading", "is a Paragraph"}, "find", path, "Варя", "--within", "1.1.p2")
	wantFail(t, 1, []string{"either --exact or --ranked, not both", "aite find --help"}, "find", path, "Варя", "--exact", "--ranked")
	wantFail(t, 1, []string{"--limit must be between 1 and 1000 (got 0)"}, "find", path, "Варя", "--ranked", "--limit", "0")
	wantFail(t, 1, []string{"--limit must be between 1 and 1000 (got 1001)"}, "find", path, "Варя", "--limit", "1001")
	wantFail(t, 1, []string{`unknown kind "para"`}, "find", path, "Варя", "--kind", "para")
	wantFail(t, 1, []string{"find takes at least 2 arguments: BOOK.md WORD..."}, "find", path)
	wantFail(t, 1, []string{"has no words"}, "find", path, "--exact", "—")
	wantFail(t, 1, []string{"needs at least one keyword"}, "find", path, "—")
	missing := filepath.Join(t.TempDir(), "missing.md")
	wantFail(t, 2, []string{"book " + missing + " does not exist"}, "find", missing, "Варя")
	r = wantFail(t, 2, nil, "find", "--json", missing, "Варя", "--ranked")
	wantKeys(t, "error", decodeObject(t, r.stderr), "error")
}

func TestFindKeywordLimit(t *testing.T) {
	path := writeSample(t)
	all := findPointers(t, path, "Звёздочкин")
	if got := findPointers(t, path, "Звёздочкин", "--limit", "3"); !slices.Equal(got, all[:3]) {
		t.Errorf("--limit 3 = %v, want %v", got, all[:3])
	}
	r := mustRun(t, "find", path, "Звёздочкин", "--limit", "3")
	if len(firstColumn(r.stdout)) != 3 || r.stderr != "3 items (--limit 3 reached: there may be more)\n" {
		t.Errorf("stdout:\n%s\nstderr %q", r.stdout, r.stderr)
	}
	r = mustRun(t, "find", path, "Звёздочкин", "--limit", "24")
	if r.stderr != "24 items\n" {
		t.Errorf("a limit equal to the matches: stderr %q", r.stderr)
	}
}
