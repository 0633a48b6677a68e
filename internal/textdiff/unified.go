package textdiff

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// noNewline follows a line that lacks its final newline.
const noNewline = "\n\\ No newline at end of file\n"

// Unified returns the unified diff that turns old into new, as "diff -u"
// prints it: "--- oldName" and "+++ newName" headers, then hunks headed
// "@@ -l,s +l,s @@" with up to context unchanged lines around each run of
// changes (3 is the usual; a negative value counts as 0). Hunks whose
// context would touch or overlap are merged, ranges of one line omit
// ",1", and an empty range is given as the line before it with ",0".
// A line without a final newline is followed by "\ No newline at end of
// file". Unified returns "" when old and new are equal.
func Unified(oldName, newName string, old, new []byte, context int) string {
	return UnifiedPart(oldName, newName, old, new, context, 0)
}

// UnifiedPart is Unified of two texts given by the parts old and new that
// hold every difference between them: before the parts both texts have the
// same lines (skipped counts them), after them the same bytes, and each
// part starts at the start of a line and ends at the end of one (or of its
// text). So that the hunks are those of the whole texts, each part must
// hold at least context unchanged lines before the first difference and
// after the last one, unless it starts or ends with its text.
func UnifiedPart(oldName, newName string, old, new []byte, context, skipped int) string {
	if bytes.Equal(old, new) {
		return ""
	}
	context = min(max(context, 0), math.MaxInt32) // 2*context cannot overflow
	w := newWindow(old, new, context)
	w.base += skipped
	cs := w.changes()
	if len(cs) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("--- " + oldName + "\n+++ " + newName + "\n")
	for len(cs) > 0 {
		n := 1
		for n < len(cs) && cs[n].a0-cs[n-1].a1 <= 2*context {
			n++
		}
		w.writeHunk(&sb, cs[:n], context)
		cs = cs[n:]
	}
	return sb.String()
}

// writeHunk writes one hunk holding the changes cs and their context.
func (w *window) writeHunk(sb *strings.Builder, cs []change, context int) {
	first, last := cs[0], cs[len(cs)-1]
	pre := min(context, first.a0)
	post := min(context, len(w.a)-last.a1)
	a0, a1 := first.a0-pre, last.a1+post
	b0, b1 := first.b0-pre, last.b1+post
	sb.WriteString("@@ -" + hunkRange(w.base+a0, a1-a0) +
		" +" + hunkRange(w.base+b0, b1-b0) + " @@\n")
	writeLines(sb, ' ', w.a[a0:first.a0])
	for k, c := range cs {
		writeLines(sb, '-', w.a[c.a0:c.a1])
		writeLines(sb, '+', w.b[c.b0:c.b1])
		end := a1
		if k+1 < len(cs) {
			end = cs[k+1].a0
		}
		writeLines(sb, ' ', w.a[c.a1:end])
	}
}

// hunkRange formats a range of count lines after the first start lines.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

// writeLines writes each line after the marker byte.
func writeLines(sb *strings.Builder, marker byte, lines [][]byte) {
	for _, l := range lines {
		sb.WriteByte(marker)
		sb.Write(l)
		if len(l) == 0 || l[len(l)-1] != '\n' {
			sb.WriteString(noNewline)
		}
	}
}
