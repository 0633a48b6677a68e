package textdiff

import (
	"strings"
	"unicode"
)

// DefaultWidth is the context, in characters, Trim keeps around a change
// inside a long line.
const DefaultWidth = 60

// Trim shortens the long lines of a unified diff for reading, so a small
// change inside a long paragraph (a line of a Markdown book) shows as the
// changed words with about width characters of context on each side, not
// the whole paragraph twice. A removed line followed by an added one is
// cut to the part where they differ (widened to word boundaries) plus the
// context; any other line longer than about 2×width+… keeps width
// characters at each end. Cuts are marked with "…". Headers, hunk lines
// and short lines are unchanged, so the result still reads as a unified
// diff, but it is not a patch any more. width below 1 means DefaultWidth.
func Trim(diff string, width int) string {
	if width < 1 {
		width = DefaultWidth
	}
	lines := strings.SplitAfter(diff, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); {
		// a run of removed lines followed by a run of added ones
		j := i
		for j < len(lines) && isBody(lines[j], '-') {
			j++
		}
		k := j
		for k < len(lines) && isBody(lines[k], '+') {
			k++
		}
		if j > i && k-j == j-i {
			for n := 0; n < j-i; n++ {
				o, w := cutPair(lines[i+n][1:], lines[j+n][1:], width)
				b.WriteString("-" + o)
				lines[j+n] = "+" + w
			}
			for _, l := range lines[j:k] {
				b.WriteString(l)
			}
			i = k
			continue
		}
		b.WriteString(cutLine(lines[i], width))
		i++
	}
	return b.String()
}

// isBody reports whether l is a body line with the marker (not a header).
func isBody(l string, marker byte) bool {
	if len(l) == 0 || l[0] != marker {
		return false
	}
	return !strings.HasPrefix(l, "--- ") && !strings.HasPrefix(l, "+++ ")
}

// cutLine keeps width characters at each end of a long body line.
func cutLine(l string, width int) string {
	if len(l) == 0 || (l[0] != ' ' && l[0] != '-' && l[0] != '+') || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
		return l
	}
	body, nl := strings.CutSuffix(l[1:], "\n")
	r := []rune(body)
	if len(r) <= 2*width+8 {
		return l
	}
	head, tail := wordCut(r, width, true), wordCut(r, len(r)-width, false)
	out := l[:1] + string(r[:head]) + " … " + string(r[tail:])
	if nl {
		out += "\n"
	}
	return out
}

// cutPair cuts a removed and an added line to where they differ, with
// width characters of context.
func cutPair(old, new string, width int) (string, string) {
	ob, onl := strings.CutSuffix(old, "\n")
	nb, nnl := strings.CutSuffix(new, "\n")
	o, n := []rune(ob), []rune(nb)
	if len(o) <= 2*width+8 && len(n) <= 2*width+8 {
		return old, new
	}
	p := CommonPrefix(o, n)
	s := CommonSuffix(o[p:], n[p:])
	// The cuts stay inside the common prefix and suffix, so they fall at
	// the same text on both sides.
	from := min(p, wordCut(o, max(0, p-width), false))
	oTo := max(len(o)-s, wordCut(o, min(len(o), len(o)-s+width), true))
	nTo := len(n) - (len(o) - oTo)
	return clip(o, from, oTo, onl), clip(n, from, nTo, nnl)
}

// clip returns r[from:to] with … where it was cut.
func clip(r []rune, from, to int, nl bool) string {
	var b strings.Builder
	if from > 0 {
		b.WriteString("… ")
	}
	b.WriteString(string(r[from:to]))
	if to < len(r) {
		b.WriteString(" …")
	}
	if nl {
		b.WriteString("\n")
	}
	return b.String()
}

// wordCut moves a cut at i to a nearby space (within 12 characters): back
// for the end of a kept head (forward false: the start of a kept tail).
func wordCut(r []rune, i int, head bool) int {
	i = min(max(i, 0), len(r))
	for d := 0; d <= 12; d++ {
		j := i - d
		if !head {
			j = i + d
		}
		if j <= 0 || j >= len(r) {
			return i
		}
		if unicode.IsSpace(r[j]) {
			if !head {
				return j + 1
			}
			return j
		}
	}
	return i
}
