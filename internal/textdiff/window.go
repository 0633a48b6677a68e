package textdiff

import "bytes"

// window is the part of both texts that holds every difference plus up to
// ctx unchanged lines on each side of it, split into lines. The lines
// before the window are identical in both texts, and so are those after.
type window struct {
	a, b [][]byte // lines of the old and the new text inside the window
	base int      // number of lines before the window, the same in both
}

// change says that window lines a[a0:a1] are replaced by b[b0:b1].
type change struct{ a0, a1, b0, b1 int }

// newWindow strips the common prefix and suffix lines of old and new,
// keeping ctx of them next to the differing middle part.
func newWindow(old, new []byte, ctx int) *window {
	pre := commonPrefix(old, new)
	suf := commonSuffix(old[pre:], new[pre:])
	start := backLines(old, pre, ctx)
	extra := forwardLines(old[len(old)-suf:], ctx)
	return &window{
		a:    splitLines(old[start : len(old)-suf+extra]),
		b:    splitLines(new[start : len(new)-suf+extra]),
		base: bytes.Count(old[:start], []byte{'\n'}),
	}
}

// changes returns the runs of changed lines of a minimal edit script for
// the window, in order; each run lists its deletions before insertions.
func (w *window) changes() []change {
	da, db := diffLines(w.a, w.b)
	var cs []change
	i, j := 0, 0
	for i < len(da) || j < len(db) {
		c := change{a0: i, b0: j}
		for (i < len(da) && da[i]) || (j < len(db) && db[j]) {
			if i < len(da) && da[i] {
				i++
			} else {
				j++
			}
		}
		if i == c.a0 && j == c.b0 {
			i, j = i+1, j+1 // an unchanged line, present on both sides
			continue
		}
		c.a1, c.b1 = i, j
		cs = append(cs, c)
	}
	return cs
}

// commonPrefix returns the length of the longest common prefix of a and b
// that ends at a line boundary.
func commonPrefix(a, b []byte) int {
	return bytes.LastIndexByte(a[:CommonPrefix(a, b)], '\n') + 1
}

// commonSuffix returns the length of the longest common suffix of a and b
// that starts at a line boundary of both. Offset 0 counts as a boundary.
func commonSuffix(a, b []byte) int {
	k := CommonSuffix(a, b)
	if lineStart(a, len(a)-k) && lineStart(b, len(b)-k) {
		return k
	}
	// Inside the suffix both texts hold the same bytes, so the first
	// "\n" in it ends a line in both.
	i := bytes.IndexByte(a[len(a)-k:], '\n')
	if i < 0 {
		return 0
	}
	return k - i - 1
}

// lineStart reports whether offset p of data starts a line.
func lineStart(data []byte, p int) bool {
	return p == 0 || data[p-1] == '\n'
}

// backLines returns the offset n lines before offset pos of data, which
// must start a line, or 0 if there are fewer lines.
func backLines(data []byte, pos, n int) int {
	for ; n > 0 && pos > 0; n-- {
		pos = bytes.LastIndexByte(data[:pos-1], '\n') + 1
	}
	return pos
}

// forwardLines returns the offset just past the first n lines of data, or
// len(data) if it has fewer.
func forwardLines(data []byte, n int) int {
	off := 0
	for ; n > 0 && off < len(data); n-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}

// splitLines splits data after each "\n"; a last line without "\n" is a
// line too. The lines alias data, with their capacity capped.
func splitLines(data []byte) [][]byte {
	lines := make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n') + 1
		if i == 0 {
			i = len(data)
		}
		lines = append(lines, data[:i:i])
		data = data[i:]
	}
	return lines
}
