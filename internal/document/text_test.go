package document

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// A Text spliced at random answers every question as the same bytes held
// in one slice do, and never changes a Text it was made from.
func TestTextMatchesFlat(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 2))
	flat := []byte("# Title\n\nFirst paragraph.\r\n\nSecond\nparagraph.\n")
	text := TextOf(bytes.Clone(flat))
	for round := range 2000 {
		before, beforeFlat := text, string(flat)
		start := r.IntN(len(flat) + 1)
		n := r.IntN(min(len(flat)-start, 12) + 1)
		ins := []byte(string("ab\n\r#"[r.IntN(5)]) + "xyz"[:r.IntN(4)])
		if r.IntN(4) == 0 {
			ins = nil
		}
		text = text.Splice(start, n, ins)
		flat = append(append(append([]byte{}, flat[:start]...), ins...), flat[start+n:]...)
		if string(before.Bytes()) != beforeFlat {
			t.Fatalf("round %d: splicing changed the Text it was made from", round)
		}
		if text.Len() != len(flat) || !bytes.Equal(text.Bytes(), flat) {
			t.Fatalf("round %d: %q, want %q", round, text.Bytes(), flat)
		}
		for _, p := range text.Parts() {
			if len(p) == 0 {
				t.Fatalf("round %d: an empty piece", round)
			}
		}
		for range 5 {
			a := r.IntN(len(flat) + 1)
			b := a + r.IntN(len(flat)-a+1)
			if got := text.Slice(a, b); !bytes.Equal(got, flat[a:b]) {
				t.Fatalf("round %d: Slice(%d, %d) = %q, want %q", round, a, b, got, flat[a:b])
			}
			if a < len(flat) && text.At(a) != flat[a] {
				t.Fatalf("round %d: At(%d) = %q, want %q", round, a, text.At(a), flat[a])
			}
			for _, c := range []byte("\n\r#z") {
				want := bytes.IndexByte(flat[a:], c)
				if want >= 0 {
					want += a
				}
				if got := text.IndexByte(a, c); got != want {
					t.Fatalf("round %d: IndexByte(%d, %q) = %d, want %d", round, a, c, got, want)
				}
				if got, want := text.LastIndexByte(b, c), bytes.LastIndexByte(flat[:b], c); got != want {
					t.Fatalf("round %d: LastIndexByte(%d, %q) = %d, want %d", round, b, c, got, want)
				}
			}
		}
		if len(text.Parts()) > maxPieces {
			text = TextOf(text.Bytes())
		}
	}
}
