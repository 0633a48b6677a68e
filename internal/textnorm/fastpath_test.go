package textnorm

import (
	"testing"
	"unicode"
)

// refSpans is the straightforward rune-by-rune word splitter the byte
// fast paths of nextWord and wordEnd must agree with.
func refSpans(s string) []Span {
	var out []Span
	for i := 0; i < len(s); {
		r, size := decode(s, i)
		if !isWordRune(r) {
			i += size
			continue
		}
		start, prev := i, r
		i += size
		for i < len(s) {
			r, size := decode(s, i)
			if r == '\'' || r == rightQuote {
				if !isLetterish(prev) || i+size >= len(s) {
					break
				}
				if next, _ := decode(s, i+size); !unicode.IsLetter(next) {
					break
				}
			} else if !isWordRune(r) {
				break
			}
			prev = r
			i += size
		}
		out = append(out, Span{start, i})
	}
	return out
}

func sameSpans(a, b []Span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSpansFastPathAgreesWithReference(t *testing.T) {
	for _, s := range []string{
		"", "Звёздочкин и Ёлка ёж", "don't 'quoted' д'Артаньян", "Ѡѻ ѿ ҂ ҃ Ѐ џ",
		"mixed Zвёздочкин iPhoneы 2nd", "\xd0\xd0\xd1 broken \xd0", "кто-то — «так»", "é café naïve",
		"достопримечательность", "абв\xd0xгдежз", "абвг\xd1", "абвгдеж\xd0", "ѐђѓєѕіїјљњћќѝўџ", "абвг'деж", "абвгде'",
	} {
		if got, want := Spans(s), refSpans(s); !sameSpans(got, want) {
			t.Errorf("%q: fast %v, reference %v", s, got, want)
		}
	}
}

func FuzzSpansFastPath(f *testing.F) {
	for _, s := range []string{"Звёздочкин don't", "\xd0\x80\xd1\xbf\xd2\x82", "a'б'c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Spans(s), refSpans(s); !sameSpans(got, want) {
			t.Fatalf("%q: fast %v, reference %v", s, got, want)
		}
	})
}

func TestSpansFastPathOnBooks(t *testing.T) {
	text := bookText(t)
	if got, want := Spans(text), refSpans(text); !sameSpans(got, want) {
		t.Fatalf("fast path differs on the books: %d vs %d spans", len(got), len(want))
	}
}
