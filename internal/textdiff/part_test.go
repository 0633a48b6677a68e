package textdiff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// UnifiedPart of two parts that hold every difference and enough unchanged
// lines around it is Unified of the whole texts: the same hunks at the
// same line numbers, at the start, in the middle and at the end of a text.
func TestUnifiedPartIsUnifiedOfTheWhole(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("line %d\n", i))
	}
	whole := func(ls []string) []byte { return []byte(strings.Join(ls, "")) }
	for _, at := range []int{0, 1, 5, 20, 38, 39} {
		for _, context := range []int{0, 1, 3} {
			for _, edit := range []func([]string) []string{
				func(ls []string) []string { ls[at] = "changed\n"; return ls },
				func(ls []string) []string { return slices.Insert(ls, at, "new 1\n", "new 2\n") },
				func(ls []string) []string { return slices.Delete(ls, at, at+1) },
			} {
				edited := edit(slices.Clone(lines))
				lo, hi := max(0, at-context-1), min(len(lines), at+context+2)
				newHi := hi + len(edited) - len(lines)
				want := Unified("a", "b", whole(lines), whole(edited), context)
				require.NotEmpty(t, want)
				got := UnifiedPart("a", "b", whole(lines[lo:hi]), whole(edited[lo:newHi]), context, lo)
				require.Equal(t, want, got, "line %d, context %d", at, context)
			}
		}
	}
}
