package main

import (
	"encoding/json"
	"testing"
)

func TestOutlineText(t *testing.T) {
	r := mustRun(t, "outline", writeBook(t))
	want := "(1 item before the first heading)\n" +
		"2:1  # Title  (1 item, 12 in all)\n" +
		"  4:1.1  ## Chapter One  (8 items)\n" +
		"  13:1.2  ## Chapter Two  (1 item)\n"
	if r.stdout != want {
		t.Errorf("outline:\n%s\nwant:\n%s", r.stdout, want)
	}
}

type outlineSection struct {
	Pointer  string           `json:"pointer"`
	ID       int              `json:"id"`
	Label    string           `json:"label"`
	Level    int              `json:"level"`
	Title    string           `json:"title"`
	Items    int              `json:"items"`
	Total    int              `json:"total"`
	Children []outlineSection `json:"children"`
}

func TestOutlineJSON(t *testing.T) {
	r := mustRun(t, "outline", "--json", writeBook(t))
	var got struct {
		Preamble int              `json:"preamble"`
		Sections []outlineSection `json:"sections"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Preamble != 1 || len(got.Sections) != 1 {
		t.Fatalf("preamble %d, %d sections; want 1 and 1", got.Preamble, len(got.Sections))
	}
	title := got.Sections[0]
	if title.Pointer != "2:1" || title.ID != 2 || title.Label != "1" || title.Level != 1 ||
		title.Title != "Title" || title.Items != 1 || title.Total != 12 || len(title.Children) != 2 {
		t.Errorf("title section = %+v", title)
	}
	ch1 := title.Children[0]
	if ch1.Pointer != "4:1.1" || ch1.Level != 2 || ch1.Title != "Chapter One" || ch1.Items != 8 || ch1.Total != 8 {
		t.Errorf("chapter one = %+v", ch1)
	}
}

func TestOutlineJSONFieldNames(t *testing.T) {
	r := mustRun(t, "--json", "outline", writeBook(t))
	m := decodeObject(t, r.stdout)
	wantKeys(t, "outline", m, "preamble", "sections")
	sec := m["sections"].([]any)[0]
	keys := []string{"pointer", "id", "label", "level", "title", "items", "total", "children"}
	wantKeys(t, "section", sec, keys...)
	child := sec.(map[string]any)["children"].([]any)[0]
	wantKeys(t, "subsection", child, keys...)
	if c := child.(map[string]any)["children"]; c == nil {
		t.Error("children of a leaf section is null, want []")
	}
}

func TestOutlineNoHeadings(t *testing.T) {
	path := writeBook(t)
	mustWrite(t, path, "Just a paragraph.\n\nAnd another.\n")
	r := mustRun(t, "outline", path)
	if r.stdout != "(2 items before the first heading)\n" {
		t.Errorf("outline = %q", r.stdout)
	}
	r = mustRun(t, "outline", "--json", path)
	m := decodeObject(t, r.stdout)
	if s, ok := m["sections"].([]any); !ok || len(s) != 0 {
		t.Errorf("sections = %#v, want []", m["sections"])
	}
}
