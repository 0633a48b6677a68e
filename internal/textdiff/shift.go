package textdiff

import "bytes"

// flags are the change marks of a text's lines, with an unset sentinel on
// either side: line i is at index i+1, for i from -1 to the line count.
type flags []bool

func newFlags(n int) flags              { return make(flags, n+2) }
func (f flags) at(i int) bool           { return f[i+1] }
func (f flags) set(i int, changed bool) { f[i+1] = changed }
func (f flags) lines() []bool           { return f[1 : len(f)-1] }

// shifter slides runs of changed lines along equal lines, as GNU diff's
// shift_boundaries does: a minimal edit script often has several equally
// short placements of a run, and this picks the one that merges it with
// neighbouring runs and lines it up with changes in the other text, which
// reads best and gives the same hunks as GNU diff in most cases.
type shifter struct {
	lines [][]byte
	h     []uint32
	c, oc flags // marks of this text and of the other one
	n     int   // line count of this text
	i, j  int   // current line here and the matching line there
	start int   // first line of the current run; i is past its end
	// corr is the end of the run where it last lined up with a run of
	// changes in the other text, or n when it never did.
	corr int
}

// shiftBoundaries slides the runs of changed lines of both texts.
func shiftBoundaries(a, b [][]byte, ha, hb []uint32, fa, fb flags) {
	(&shifter{lines: a, h: ha, c: fa, oc: fb, n: len(a)}).run()
	(&shifter{lines: b, h: hb, c: fb, oc: fa, n: len(b)}).run()
}

func (s *shifter) eq(i, k int) bool {
	return s.h[i] == s.h[k] && bytes.Equal(s.lines[i], s.lines[k])
}

func (s *shifter) run() {
	for {
		for s.i < s.n && !s.c.at(s.i) { // skip unchanged lines
			s.skipOther()
			s.i++
		}
		if s.i == s.n {
			return
		}
		s.start = s.i
		for s.i++; s.c.at(s.i); s.i++ {
		}
		for s.oc.at(s.j) {
			s.j++
		}
		for {
			length := s.i - s.start
			s.slideUp()
			s.slideDown()
			if length == s.i-s.start {
				break
			}
		}
		for s.corr < s.i { // back to where it lined up with the other text
			s.moveUp()
		}
	}
}

// skipOther moves j past the next unchanged line of the other text.
func (s *shifter) skipOther() {
	for s.oc.at(s.j) {
		s.j++
	}
	s.j++
}

// moveUp moves the run one line up: its last line becomes unchanged and
// the equal line before it changed.
func (s *shifter) moveUp() {
	s.start--
	s.c.set(s.start, true)
	s.i--
	s.c.set(s.i, false)
	for s.j--; s.oc.at(s.j); s.j-- {
	}
}

// slideUp moves the run up while the line before it equals its last line,
// merging it with runs it meets.
func (s *shifter) slideUp() {
	for s.start > 0 && s.eq(s.start-1, s.i-1) {
		s.moveUp()
		for s.c.at(s.start - 1) {
			s.start--
		}
	}
	s.corr = s.n
	if s.oc.at(s.j - 1) {
		s.corr = s.i
	}
}

// slideDown moves the run down while its first line equals the line after
// it, merging it with runs it meets.
func (s *shifter) slideDown() {
	for s.i != s.n && s.eq(s.start, s.i) {
		s.c.set(s.start, false)
		s.start++
		s.c.set(s.i, true)
		for s.i++; s.c.at(s.i); s.i++ {
		}
		for s.j++; s.oc.at(s.j); s.j++ {
			s.corr = s.i
		}
	}
}
