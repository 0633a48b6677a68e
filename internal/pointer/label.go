package pointer

import (
	"strconv"
	"strings"
)

// Labeler assigns labels in document order with the pinned algorithm: a list
// of heading counters and one `p` counter. On a heading of level L the
// counters are padded with zeros up to length L, counter L is incremented,
// deeper counters are dropped, trailing zeros are trimmed and `p` is reset;
// the label is the counters joined by `.` (`1`, `1.2`, `1.0.1` when a level
// is skipped). Any other item increments `p` and is labelled
// `<heading label>.p<n>`, or `p<n>` before the first heading.
//
// Example: `# T / intro / ## S / a / b` → `1`, `1.p1`, `1.1`, `1.1.p1`, `1.1.p2`.
type Labeler struct {
	counters []int
	heading  string
	p        int
}

// NewLabelerAt returns a labeler positioned just after a heading with the
// given label (or at the start of the document for ""), with p items already
// counted in that section. It lets callers relabel one section only.
func NewLabelerAt(headingLabel string, p int) *Labeler {
	return &Labeler{counters: splitCounters(headingLabel), heading: headingLabel, p: p}
}

// Heading returns the label of a heading of the given level (1..6; values
// out of range are clamped).
func (l *Labeler) Heading(level int) string {
	level = max(1, min(level, 6))
	for len(l.counters) < level {
		l.counters = append(l.counters, 0)
	}
	l.counters[level-1]++
	l.counters = l.counters[:level]
	n := len(l.counters)
	for n > 0 && l.counters[n-1] == 0 {
		n--
	}
	var b strings.Builder
	for i, c := range l.counters[:n] {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(c))
	}
	l.heading = b.String()
	l.p = 0
	return l.heading
}

// Item returns the label of the next non-heading item.
func (l *Labeler) Item() string {
	l.p++
	return ItemLabel(l.heading, l.p)
}

// ItemLabel formats the label of the p-th item under a heading label.
func ItemLabel(heading string, p int) string {
	if heading == "" {
		return "p" + strconv.Itoa(p)
	}
	return heading + ".p" + strconv.Itoa(p)
}
