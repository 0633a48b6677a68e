package pointer

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLabelerPinnedExamples(t *testing.T) {
	type step struct {
		level int // 0 = non-heading item
		want  string
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"doc example", []step{{1, "1"}, {0, "1.p1"}, {2, "1.1"}, {0, "1.1.p1"}, {0, "1.1.p2"}}},
		{"items before first heading", []step{{0, "p1"}, {0, "p2"}, {1, "1"}, {0, "1.p1"}}},
		{"skipped level", []step{{1, "1"}, {3, "1.0.1"}, {0, "1.0.1.p1"}, {3, "1.0.2"}, {2, "1.1"}}},
		{"first heading deep", []step{{2, "0.1"}, {0, "0.1.p1"}, {1, "1"}, {2, "1.1"}}},
		{"back to top resets deeper", []step{{1, "1"}, {2, "1.1"}, {3, "1.1.1"}, {1, "2"}, {3, "2.0.1"}, {0, "2.0.1.p1"}}},
		{"p counts every item", []step{{1, "1"}, {0, "1.p1"}, {0, "1.p2"}, {0, "1.p3"}, {2, "1.1"}, {0, "1.1.p1"}}},
		{"level clamped", []step{{9, "0.0.0.0.0.1"}, {0, "0.0.0.0.0.1.p1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Labeler
			for i, s := range tt.steps {
				var got string
				if s.level == 0 {
					got = l.Item()
				} else {
					got = l.Heading(s.level)
				}
				require.Equal(t, s.want, got, "step %d", i)
			}
		})
	}
}

func TestNewLabelerAt(t *testing.T) {
	l := NewLabelerAt("2.1", 3)
	require.Equal(t, "2.1.p4", l.Item())
	require.Equal(t, "2.2", l.Heading(2))
	l = NewLabelerAt("", 0)
	require.Equal(t, "p1", l.Item())
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Pointer
	}{
		{"24:1.1.1.p21", Pointer{24, "1.1.1.p21"}},
		{"  24:1.1.1.p21  ", Pointer{24, "1.1.1.p21"}},
		{"24:1.1.1.p21.", Pointer{24, "1.1.1.p21"}},
		{"24 : 1.1.1.p21", Pointer{24, "1.1.1.p21"}},
		{"1.1.p21", Pointer{0, "1.1.p21"}},
		{"1.2.3p34", Pointer{0, "1.2.3.p34"}},
		{"1.2.3P34", Pointer{0, "1.2.3.p34"}},
		{"p3", Pointer{0, "p3"}},
		{"1.2", Pointer{0, "1.2"}},
		{"1.0.1", Pointer{0, "1.0.1"}},
		{"01.002.p03", Pointer{0, "1.2.p3"}},
		{"24", Pointer{24, ""}},
		{"24.", Pointer{24, ""}},
		{"7:", Pointer{7, ""}},
		{"3:1", Pointer{3, "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "  ", ".", "abc", "0", "-3", "x:1.1", "0:1.1", "1.a.p3", "1.1.p", "1.1.p0", "p", "1..2", "1.1.px", "0.0", "24:1.q"} {
		t.Run(in, func(t *testing.T) {
			_, err := Parse(in)
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrSyntax), "error should wrap ErrSyntax: %v", err)
		})
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, p := range []Pointer{{24, "1.1.p2"}, {3, ""}, {0, "p1"}, {5, "1.0.1"}} {
		got, err := Parse(p.String())
		require.NoError(t, err)
		require.Equal(t, p, got)
	}
	require.True(t, Pointer{}.IsZero())
	require.Equal(t, "", Pointer{}.String())
}

func TestSplitLabel(t *testing.T) {
	h, p := SplitLabel("1.1.p21")
	require.Equal(t, "1.1", h)
	require.Equal(t, 21, p)
	h, p = SplitLabel("p3")
	require.Equal(t, "", h)
	require.Equal(t, 3, p)
	h, p = SplitLabel("2.0.1")
	require.Equal(t, "2.0.1", h)
	require.Equal(t, 0, p)
}

func TestCompare(t *testing.T) {
	ordered := []string{"p1", "p2", "0.1", "0.1.p1", "1", "1.p1", "1.p10", "1.0.1", "1.0.1.p1", "1.1", "1.1.p2", "1.2", "2", "10"}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			require.Equal(t, want, Compare(ordered[i], ordered[j]), "%s vs %s", ordered[i], ordered[j])
		}
	}
}

func FuzzPointer(f *testing.F) {
	for _, s := range []string{"24:1.1.1.p21", "1.2.3p34", "p3", "24", " 7:1.0.1. ", "", "::", "1.1.p", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error does not wrap ErrSyntax: %v", err)
			}
			return
		}
		if p.IsZero() {
			t.Fatalf("Parse(%q) succeeded with a zero pointer", s)
		}
		// The canonical form must parse back to the same pointer.
		again, err := Parse(p.String())
		if err != nil || again != p {
			t.Fatalf("Parse(%q) = %v; reparse of %q = %v, %v", s, p, p.String(), again, err)
		}
		if p.Label != "" {
			if c, err := CanonicalLabel(p.Label); err != nil || c != p.Label {
				t.Fatalf("label %q not canonical: %q %v", p.Label, c, err)
			}
		}
	})
}
