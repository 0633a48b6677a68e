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

// TestPlainRunAgreesWithPlainPair tries every lead and trail byte in the
// first and in the third lane of plainRun's 8 bytes.
func TestPlainRunAgreesWithPlainPair(t *testing.T) {
	for c := range 256 {
		for d := range 256 {
			for _, b := range [][8]byte{
				{byte(c), byte(d), 0xD0, 0xB0, 0xD1, 0x8F, byte(c), byte(d)},
				{0xD0, 0xBF, 0xD1, 0x80, byte(c), byte(d), 0xD0, 0xB5},
			} {
				want := 0
				for want < 4 && plainPair(b[2*want], b[2*want+1]) {
					want++
				}
				if got := plainRun(le64(string(b[:]))); got != want {
					t.Fatalf("% x: plainRun %d, plainPair finds %d", b, got, want)
				}
			}
		}
	}
}

// TestPlainEndOnBooks compares plainEnd with a pair-by-pair walk at every
// byte of the books.
func TestPlainEndOnBooks(t *testing.T) {
	text := bookText(t)
	for i := range len(text) {
		want := i
		for want+1 < len(text) && plainPair(text[want], text[want+1]) {
			want += 2
		}
		if got := plainEnd(text, i); got != want {
			t.Fatalf("at %d: plainEnd %d, pair by pair %d", i, got, want)
		}
	}
}
