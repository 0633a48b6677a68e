package textdiff

import (
	"strings"
	"testing"
)

// joinKinds rebuilds one side of a word diff: the segments of kind 0 and of
// kind k.
func joinKinds(segs []Segment, k OpKind) string {
	var b strings.Builder
	for _, s := range segs {
		if s.Kind == 0 || s.Kind == k {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func TestWords(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []Segment
	}{
		{"equal", "Варя читала.", "Варя читала.", []Segment{{0, "Варя читала."}}},
		{"one word", "— Тише, — сказал Звездочкин.", "— Тише, — произнёс Звездочкин.",
			[]Segment{{0, "— Тише, — "}, {Delete, "сказал"}, {Insert, "произнёс"}, {0, " Звездочкин."}}},
		{"phrase joined over spaces", "He said it was fine today.", "He claimed it was perfectly fine today.",
			[]Segment{{0, "He "}, {Delete, "said"}, {Insert, "claimed"}, {0, " it was "}, {Insert, "perfectly "}, {0, "fine today."}}},
		{"adjacent words become one run", "a b c d", "a x y d",
			[]Segment{{0, "a "}, {Delete, "b c"}, {Insert, "x y"}, {0, " d"}}},
		{"punctuation alone", "Hello, world", "Hello; world", []Segment{{0, "Hello"}, {Delete, ","}, {Insert, ";"}, {0, " world"}}},
		{"all new", "", "New text.", []Segment{{Insert, "New text."}}},
		{"all gone", "Old text.", "", []Segment{{Delete, "Old text."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Words(tt.old, tt.new)
			if len(got) != len(tt.want) {
				t.Fatalf("Words(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("Words(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
				}
			}
		})
	}
}

// FuzzWords checks that a word diff rebuilds both texts and never has two
// neighbouring segments of one kind.
func FuzzWords(f *testing.F) {
	f.Add("Профессор Звёздочкин вошёл в класс.", "Профессор Звездочкин вошел в аудиторию.")
	f.Add("a\xffb", "a b")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, old, new string) {
		segs := Words(old, new)
		if got := joinKinds(segs, Delete); got != old {
			t.Fatalf("old side %q, want %q", got, old)
		}
		if got := joinKinds(segs, Insert); got != new {
			t.Fatalf("new side %q, want %q", got, new)
		}
		for i, s := range segs {
			if s.Text == "" {
				t.Fatalf("empty segment %d in %q", i, segs)
			}
			if i > 0 && segs[i-1].Kind == s.Kind {
				t.Fatalf("segments %d and %d share kind %d: %q", i-1, i, s.Kind, segs)
			}
		}
	})
}
