package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestReadText(t *testing.T) {
	r := mustRun(t, "read", writeBook(t), "1.1.p6", "--before", "1", "--after", "1")
	want := "── 9:1.1.p5 ListItem ──\n" +
		"- Vegetables\n" +
		"\n" +
		"── ▶ 10:1.1.p6 Quote ──\n" +
		"> A quoted line\n" +
		"> that continues.\n" +
		"\n" +
		"── 11:1.1.p7 Code ──\n" +
		"```go\n" +
		"fmt.Println(\"hi\")\n" +
		"```\n"
	if r.stdout != want {
		t.Errorf("read:\n%s\nwant:\n%s", r.stdout, want)
	}
}

func TestReadAtTheEdges(t *testing.T) {
	path := writeBook(t)
	r := mustRun(t, "read", path, "1:", "--before", "5", "--after", "1")
	if !strings.HasPrefix(r.stdout, "── ▶ 1:p1 Paragraph ──\n") || strings.Count(r.stdout, "── ") != 2 {
		t.Errorf("read at the start:\n%s", r.stdout)
	}
	r = mustRun(t, "read", path, "14:1.2.p1", "--after", "200")
	if r.stdout != "── ▶ 14:1.2.p1 Paragraph ──\nLast paragraph.\n" {
		t.Errorf("read at the end:\n%q", r.stdout)
	}
}

func TestReadJSON(t *testing.T) {
	r := mustRun(t, "read", "--json", writeBook(t), "7", "--before", "1")
	var got struct {
		Target string `json:"target"`
		Items  []struct {
			Pointer    string `json:"pointer"`
			Kind       string `json:"kind"`
			Markdown   string `json:"markdown"`
			Text       string `json:"text"`
			Containers string `json:"containers"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Target != "7:1.1.p3" || len(got.Items) != 2 {
		t.Fatalf("target %q with %d items", got.Target, len(got.Items))
	}
	first := got.Items[0]
	if first.Pointer != "6:1.1.p2" || first.Markdown != "- Fruits:" || first.Text != "Fruits:" || first.Containers != "List>ListItem" {
		t.Errorf("first item = %+v", first)
	}
}

func TestReadJSONFieldNames(t *testing.T) {
	r := mustRun(t, "read", "--json", writeBook(t), "3:1.p1")
	m := decodeObject(t, r.stdout)
	wantKeys(t, "read", m, "target", "items")
	wantKeys(t, "paragraph", m["items"].([]any)[0], itemKeys()...)
}

func TestReadBadPointer(t *testing.T) {
	path := writeBook(t)
	r := wantFail(t, 1, []string{`aite: pointer "99:1.1.p6"`, "IDs go up to 14", "the label 1.1.p6 now names 10:1.1.p6",
		"nearest pointers:\n  10:1.1.p6  Quote  > A quoted line that continues.\n"}, "read", path, "99:1.1.p6")
	if strings.Contains(r.stderr, "--help") {
		t.Errorf("a bad pointer is not a usage error:\n%s", r.stderr)
	}
	wantFail(t, 1, []string{`pointer "x:y": not a pointer: the part before ':'`, "nearest pointers:", "1:p1"}, "read", path, "x:y")

	r = wantFail(t, 1, nil, "read", "--json", path, "1.1.p99")
	var got struct {
		Error   string   `json:"error"`
		Nearest []string `json:"nearest"`
	}
	if err := json.Unmarshal([]byte(r.stderr), &got); err != nil {
		t.Fatalf("stderr is not JSON: %v\n%s", err, r.stderr)
	}
	if !strings.Contains(got.Error, `pointer "1.1.p99": no item has the label 1.1.p99`) || len(got.Nearest) == 0 {
		t.Errorf("error JSON = %+v", got)
	}
	wantKeys(t, "error", decodeObject(t, r.stderr), "error", "nearest")
}

func TestReadBadFlags(t *testing.T) {
	path := writeBook(t)
	wantFail(t, 1, []string{"--before must be between 0 and 200 (got 201)"}, "read", path, "1", "--before", "201")
	wantFail(t, 1, []string{"--after must be between 0 and 200 (got -1)"}, "read", path, "1", "--after", "-1")
	wantFail(t, 1, []string{"read takes 2 argument(s): BOOK.md POINTER", "aite read --help"}, "read", path)
	r := wantFail(t, 1, nil, "--json", "read", path)
	wantKeys(t, "usage error", decodeObject(t, r.stderr), "error")
}

func TestMissingBook(t *testing.T) {
	missing := t.TempDir() + "/nope.md"
	for _, args := range [][]string{
		{"outline", missing},
		{"items", missing},
		{"read", missing, "1"},
		{"edit", missing, "delete", "1"},
		{"read", "--json", missing, "1"},
	} {
		r := wantFail(t, 2, []string{"book " + missing + " does not exist"}, args...)
		if strings.Contains(r.stderr, "--help") {
			t.Errorf("%v: an I/O error is not a usage error:\n%s", args, r.stderr)
		}
	}
	wantFail(t, 2, []string{"cannot read book"}, "outline", t.TempDir())
}

func TestUnknownCommand(t *testing.T) {
	wantFail(t, 1, []string{`unknown command "frob" for "aite"`, "Run 'aite --help' for usage."}, "frob")
}

func TestBareNumberThatIsAlsoAHeadingLabel(t *testing.T) {
	path := writeBook(t) // ID 1 is the preamble, the label 1 the title (ID 2)
	wantFail(t, 1, []string{`pointer "1": ambiguous`, "the ID 1 names 1:p1 and the heading label 1 names 2:1",
		"1:p1  Paragraph", "2:1   Heading"}, "read", path, "1")
	wantFail(t, 1, []string{"ambiguous"}, "edit", path, "replace", "1", "--text", "x")
	if r := mustRun(t, "read", path, "1:"); !strings.HasPrefix(r.stdout, "── ▶ 1:p1 Paragraph") {
		t.Errorf("read 1: = %q", r.stdout)
	}
	if r := mustRun(t, "read", path, "2:1"); !strings.HasPrefix(r.stdout, "── ▶ 2:1 Heading") {
		t.Errorf("read 2:1 = %q", r.stdout)
	}
}
