package eval

import (
	"github.com/aitexteditor/aite/internal/textdiff"
)

// differingBytes measures how far b is from a, the relay's score: the
// line differences of a minimal line diff, each run of changed lines
// narrowed to the bytes between its common prefix and suffix, counted as
// the longer of the removed and the added bytes. Equal texts give 0; one
// word changed in a long paragraph gives about the word's length, not the
// paragraph's.
func differingBytes(a, b []byte) int {
	total := 0
	var del, ins []byte
	flush := func() {
		p := textdiff.CommonPrefix(del, ins)
		s := textdiff.CommonSuffix(del[p:], ins[p:])
		total += max(len(del)-p-s, len(ins)-p-s)
		del, ins = del[:0], ins[:0]
	}
	var prev *textdiff.Op
	for _, op := range textdiff.Lines(a, b) {
		if prev != nil && !sameRun(*prev, op) {
			flush()
		}
		if op.Kind == textdiff.Delete {
			del = append(del, op.Text...)
		} else {
			ins = append(ins, op.Text...)
		}
		prev = &op
	}
	flush()
	return total
}

// sameRun reports whether op continues the run of changed lines that
// prev belongs to: deletions of consecutive old lines, then insertions of
// consecutive new lines at the same place.
func sameRun(prev, op textdiff.Op) bool {
	switch {
	case op.Kind == textdiff.Delete:
		return prev.Kind == textdiff.Delete && op.OldLine == prev.OldLine+1
	case prev.Kind == textdiff.Delete:
		return op.OldLine == prev.OldLine+1
	}
	return op.NewLine == prev.NewLine+1 && op.OldLine == prev.OldLine
}
