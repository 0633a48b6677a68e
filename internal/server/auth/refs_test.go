package auth

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNormalizeRef(t *testing.T) {
	tests := []struct {
		target, want string // want "" = ignored
	}{
		{"images/a.png", "images/a.png"},
		{"  x.png ", "x.png"},
		{"/images/a.png?x=1#frag", "images/a.png"},
		{"/data/x.png", "data/x.png"},
		{"a.png#top", "a.png"},
		{"my%20pic.png", "my pic.png"},
		{"a%ZZ.png", "a%ZZ.png"}, // not valid percent-encoding: kept as written
		{"/api/ap/data?file=images%2Fa.png&t=abc", "images/a.png"},
		{"/api/ap/data?download=true&file=/data/x.png", "data/x.png"},
		{"api/ap/data?file=x.png", "x.png"},
		{"/api/ap/data?file=x.png#frag", "x.png"},
		{"/api/ap/data?file=a+b.png", "a b.png"},
		{"/api/ap/data?t=abc", ""},
		{"/api/ap/data", ""},
		{"/api/ap/data?file=../etc/passwd", ""},
		{"/api/ap/data?file=%2e%2e%2fx", ""},
		{"/api/ap/data/x.png", "api/ap/data/x.png"},
		{"http://example.com/a.png", ""},
		{"HTTPS://example.com/a.png", ""},
		{"data:image/png;base64,iVBORw0KGgo=", ""},
		{"blob:https://app/123", ""},
		{"mailto:a@b.c", ""},
		{"javascript:alert(1)", ""},
		{"//cdn.example/x.png", ""},
		{"../secret.png", ""},
		{"a/../../b.png", ""},
		{"%2e%2e/secret.png", ""},
		{"a\\b.png", ""},
		{"", ""},
		{"#section", ""},
		{"?q=1", ""},
		{"/", ""},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			got, ok := NormalizeRef(tc.target)
			if ok != (tc.want != "") || got != tc.want {
				t.Fatalf("NormalizeRef(%q) = %q, %v; want %q", tc.target, got, ok, tc.want)
			}
		})
	}
}

func TestReferencedFiles(t *testing.T) {
	texts := []string{
		"See ![chart](charts/q1.png \"Q1\") and [report](/files/r.pdf).",
		"[x](<my file.png>) and [p](a_(1).png) and [esc](a\\)b.png)",
		"[ext](https://e.com/x.png) ![d](data:image/png;base64,AA) [frag](#section)",
		"[w](/api/ap/data?file=w.png&download=true)\n[a]( spaced.png )",
		"[bad](../../etc/passwd) [open](<unterminated.png) ] (not.png) [](empty-text.png)",
		"![nested [brackets]](n.png) trailing ](",
	}
	refURLs := []string{"/api/ap/data?file=ref.png", "https://x/y.png", "uploads/u.txt", ""}
	got := ReferencedFiles(texts, refURLs)
	want := []string{
		"a)b.png", "a_(1).png", "charts/q1.png", "empty-text.png", "files/r.pdf", "my file.png",
		"n.png", "ref.png", "spaced.png", "uploads/u.txt", "w.png",
	}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, want) {
		t.Fatalf("ReferencedFiles() = %q\nwant %q", keys, want)
	}
	if len(ReferencedFiles(nil, nil)) != 0 {
		t.Error("no input gives references")
	}
}

func TestReferencedFileMatchesRequest(t *testing.T) {
	// The /data handler compares CleanDataPath(file) with the normalised references.
	refs := ReferencedFiles([]string{"![img](/api/ap/data?file=%2Fimg%2Fa.png)"}, nil)
	for _, param := range []string{"img/a.png", "/img/a.png", " //img//a.png "} {
		p, err := CleanDataPath(param)
		if err != nil || !refs[p] {
			t.Errorf("file=%q → %q, %v; not referenced in %v", param, p, err, refs)
		}
	}
}

func FuzzNormalizeRef(f *testing.F) {
	for _, s := range []string{"a.png", "/api/ap/data?file=x", "../x", "[a](b)", "<x>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, ok := NormalizeRef(s); ok {
			bad := p == "" || strings.ContainsAny(p, "\\\x00") || strings.HasPrefix(p, "/") ||
				!filepath.IsLocal(filepath.FromSlash(p)) || slices.Contains(strings.Split(p, "/"), "..")
			if bad {
				t.Fatalf("NormalizeRef(%q) = %q, which is not a local relative path", s, p)
			}
		}
		for _, target := range linkTargets(s) {
			NormalizeRef(target)
		}
	})
}
