package textdiff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// randomLine draws from a small alphabet so that lines repeat often.
func randomLine(r *rand.Rand) string {
	words := []string{"a", "b", "c", "d", "", "a\r", "Ж", "\xff"}
	return words[r.IntN(len(words))] + "\n"
}

// randomText returns up to 24 random lines, sometimes without the final
// newline.
func randomText(r *rand.Rand) []byte {
	var b []byte
	for range r.IntN(25) {
		b = append(b, randomLine(r)...)
	}
	if len(b) > 0 && r.IntN(4) == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// mutate applies a few random line edits to text.
func mutate(r *rand.Rand, text []byte) []byte {
	lines := testLines(text)
	for range r.IntN(5) {
		i := r.IntN(len(lines) + 1)
		switch {
		case r.IntN(3) == 0 && i < len(lines):
			lines = append(lines[:i], lines[i+1:]...)
		case r.IntN(2) == 0 && i < len(lines):
			lines[i] = randomLine(r)
		default:
			lines = append(lines[:i], append([]string{randomLine(r)}, lines[i:]...)...)
		}
	}
	out := []byte(strings.Join(lines, ""))
	if r.IntN(6) == 0 {
		if n := len(out); n > 0 && out[n-1] == '\n' {
			out = out[:n-1]
		} else {
			out = append(out, '\n')
		}
	}
	return out
}

// countChanges counts the added and removed lines of a diff body.
func countChanges(body string) (added, removed int) {
	for _, l := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

func TestRandomProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	same, compared := 0, 0
	for n := range 400 {
		old := randomText(r)
		new := mutate(r, old)
		if n%3 == 0 {
			new = randomText(r)
		}
		ctx := r.IntN(5)
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			patch := Unified("a", "b", old, new, ctx)
			checkDiff(t, old, new, patch)
			added, removed := Stat(old, new)
			if nOld, nNew := len(testLines(old)), len(testLines(new)); added > nNew || removed > nOld {
				t.Fatalf("Stat +%d -%d exceeds delete-all/add-all -%d +%d", added, removed, nOld, nNew)
			}
			gnu, ok := gnuDiff(t, old, new, "--minimal", "-U", strconv.Itoa(ctx))
			if !ok {
				return
			}
			if ga, gr := countChanges(gnu); added != ga || removed != gr {
				t.Fatalf("Stat +%d -%d, GNU diff --minimal +%d -%d\nold %q\nnew %q", added, removed, ga, gr, old, new)
			}
			compared++
			if stripHeaders(patch) == gnu {
				same++
			}
		})
	}
	if compared > 0 {
		// Equal-length edit scripts may place ambiguous edits differently.
		t.Logf("output identical to GNU diff --minimal -u in %d of %d cases", same, compared)
	}
}

// TestCostLimit forces the non-minimal fallback of the middle-snake search
// and checks that the marks still describe a valid edit script.
func TestCostLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 300 {
		x, y := randomIDs(r), randomIDs(r)
		for _, limit := range []int{1, 2, 3} {
			m := newMyers(seqOf(x), seqOf(y))
			m.budget, m.limit = 0, limit
			m.compare(0, len(x), 0, len(y))
			if err := checkMarks(x, y, m.dx, m.dy); err != nil {
				t.Fatalf("case %d, limit %d: %v\nx %v\ny %v", n, limit, err, x, y)
			}
		}
	}
}

func randomIDs(r *rand.Rand) []int32 {
	ids := make([]int32, r.IntN(40))
	for i := range ids {
		ids[i] = r.Int32N(4)
	}
	return ids
}

// seqOf returns a seq of one-byte lines with the given values.
func seqOf(ids []int32) seq {
	s := seq{h: make([]uint32, len(ids)), idx: make([]int32, len(ids)), lines: make([][]byte, len(ids))}
	for i, id := range ids {
		s.h[i], s.idx[i], s.lines[i] = uint32(id), int32(i), []byte{byte(id)}
	}
	return s
}

// checkMarks verifies that the unmarked elements of x and y are equal.
func checkMarks(x, y []int32, dx, dy []bool) error {
	var kx, ky []int32
	for i, c := range dx {
		if !c {
			kx = append(kx, x[i])
		}
	}
	for j, c := range dy {
		if !c {
			ky = append(ky, y[j])
		}
	}
	if fmt.Sprint(kx) != fmt.Sprint(ky) {
		return fmt.Errorf("kept %v and %v", kx, ky)
	}
	return nil
}

func TestLargeEdits(t *testing.T) {
	old := benchText(512 << 10)
	rev := old[:32<<10]
	moved, nMoved := moveBlock(old, 40<<10)
	tests := []struct {
		name     string
		old, new []byte
		changed  int // expected added and removed lines; -1 if not known
	}{
		{"three edits", old, editBook(old), 2},
		{"all different", old, bytes.ToUpper(old), -1},
		{"block moved", old, moved, nMoved},
		{"reversed lines", rev, reverseLines(rev), -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkDiff(t, tc.old, tc.new, Unified("old", "new", tc.old, tc.new, 3))
			added, removed := Stat(tc.old, tc.new)
			if tc.changed >= 0 && (added != tc.changed || removed != tc.changed) {
				t.Errorf("Stat = +%d -%d, want +%d -%d", added, removed, tc.changed, tc.changed)
			}
		})
	}
}

// moveBlock moves the lines in text[size:2*size] (rounded to whole lines)
// to 6*size and returns the result and the number of lines moved.
func moveBlock(text []byte, size int) ([]byte, int) {
	at := func(p int) int { return bytes.LastIndexByte(text[:p], '\n') + 1 }
	s, e, d := at(size), at(2*size), at(6*size)
	return bytes.Join([][]byte{text[:s], text[e:d], text[s:e], text[d:]}, nil), len(testLines(text[s:e]))
}

func reverseLines(text []byte) []byte {
	lines := testLines(text)
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return []byte(strings.Join(lines, ""))
}
