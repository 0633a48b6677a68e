// Package textdiff computes line differences between two texts and formats
// them as unified diffs, the format of GNU "diff -u" and "git diff".
//
// Texts are arbitrary bytes, valid UTF-8 or not. A line ends after "\n"; a
// "\r" before it stays part of the line, so CRLF texts diff correctly, and a
// last line without "\n" differs from the same line with one.
//
// The edit script is minimal: Myers' O(ND) algorithm in its linear-space
// form, as in GNU diff, on lines hashed to integers, after stripping the
// common leading and trailing lines with fast byte comparisons, so a few
// edits in a multi-megabyte book cost time linear in its size. Runs of
// changes are then slid along equal lines as GNU diff does, so hunks
// mostly come out exactly as "diff -u" prints them. Only pathological
// inputs (say, a book with its lines reversed) exhaust a work budget of
// about half a second, after which the diff stays valid but may no
// longer be minimal.
package textdiff

// OpKind says whether an Op deletes or inserts a line.
type OpKind uint8

const (
	// Delete removes a line of the old text.
	Delete OpKind = iota + 1
	// Insert adds a line of the new text.
	Insert
)

// String returns "delete" or "insert".
func (k OpKind) String() string {
	switch k {
	case Delete:
		return "delete"
	case Insert:
		return "insert"
	}
	return "OpKind(?)"
}

// Op is one step of a line edit script.
//
// OldLine and NewLine are 0-based line indexes. A Delete removes old line
// OldLine; an Insert adds new line NewLine. The other index gives the
// position of the edit on the other side: the number of lines there that
// precede it. Text is the line including its "\n" (missing only on a last
// line without a newline); it aliases the input.
type Op struct {
	Kind    OpKind
	OldLine int
	NewLine int
	Text    []byte
}

// Lines returns a minimal edit script that turns old into new: the deleted
// and inserted lines in text order, deletions before insertions within a
// run of changed lines. Unchanged lines are not listed, so the result is
// nil when the texts are equal.
func Lines(old, new []byte) []Op {
	w := newWindow(old, new, 0)
	var ops []Op
	for _, c := range w.changes() {
		for i := c.a0; i < c.a1; i++ {
			ops = append(ops, Op{Delete, w.base + i, w.base + c.b0, w.a[i]})
		}
		for j := c.b0; j < c.b1; j++ {
			ops = append(ops, Op{Insert, w.base + c.a1, w.base + j, w.b[j]})
		}
	}
	return ops
}

// Stat returns the number of lines added and removed by a minimal edit
// script that turns old into new, as in "git diff --stat".
func Stat(old, new []byte) (added, removed int) {
	w := newWindow(old, new, 0)
	for _, c := range w.changes() {
		added += c.b1 - c.b0
		removed += c.a1 - c.a0
	}
	return added, removed
}
