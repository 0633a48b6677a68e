package textdiff

import (
	"bytes"
	"math"
)

// Cost caps. Searches are exact until the whole diff has taken workBudget
// steps (about half a second); past that, each middle-snake search settles
// for a good split after costLimit edits, so pathological inputs such as a
// book with its lines reversed still finish quickly, with a valid but not
// always minimal diff. Real edits, even a move of a tenth of a 5 MB book,
// stay within the budget.
const (
	workBudget = 1 << 28
	costLimit  = 256
)

// diffLines marks the lines of a and b that are not part of a longest
// common subsequence of the two: da[i] for a deleted line a[i], db[j] for
// an inserted line b[j].
func diffLines(a, b [][]byte) (da, db []bool) {
	fa, fb := newFlags(len(a)), newFlags(len(b))
	da, db = fa.lines(), fb.lines()
	ha, hb := hashLines(a), hashLines(b)
	inA, inB := newLineSet(len(a)+len(b)), newLineSet(len(a)+len(b))
	for _, h := range ha {
		inA.add(h)
	}
	for _, h := range hb {
		inB.add(h)
	}
	// A line missing from the other text is surely changed; leaving it
	// out keeps the longest common subsequence and shrinks the search.
	x, y := keep(a, ha, inB, da), keep(b, hb, inA, db)
	m := newMyers(x, y)
	m.compare(0, len(x.h), 0, len(y.h))
	for i, c := range m.dx {
		da[x.idx[i]] = c
	}
	for j, c := range m.dy {
		db[y.idx[j]] = c
	}
	shiftBoundaries(a, b, ha, hb, fa, fb)
	return da, db
}

// myers finds a shortest edit script between x and y with the linear-space
// divide-and-conquer form of Myers' algorithm, marking changed elements in
// dx and dy. fd and bd hold the furthest x reached on each diagonal
// k = x - y by the forward and the backward search, at index k + off.
type myers struct {
	x, y   seq
	dx, dy []bool
	fd, bd []int32
	off    int
	work   int // steps taken so far: diagonals visited plus snake lengths
	budget int // work after which searches stop being exact
	limit  int // search cost after which an inexact split settles
}

func newMyers(x, y seq) *myers {
	n := len(x.h) + len(y.h) + 3
	return &myers{
		x: x, y: y,
		dx: make([]bool, len(x.h)), dy: make([]bool, len(y.h)),
		fd: make([]int32, n), bd: make([]int32, n),
		off: len(y.h) + 1, budget: workBudget, limit: costLimit,
	}
}

// eq reports whether x[i] and y[j] are equal lines.
func (m *myers) eq(i, j int) bool {
	return m.x.h[i] == m.y.h[j] && bytes.Equal(m.x.line(i), m.y.line(j))
}

// compare marks the changes between x[xoff:xlim] and y[yoff:ylim].
func (m *myers) compare(xoff, xlim, yoff, ylim int) {
	for xoff < xlim && yoff < ylim && m.eq(xoff, yoff) {
		xoff, yoff = xoff+1, yoff+1
	}
	for xoff < xlim && yoff < ylim && m.eq(xlim-1, ylim-1) {
		xlim, ylim = xlim-1, ylim-1
	}
	if xoff < xlim && yoff < ylim {
		xmid, ymid := m.split(xoff, xlim, yoff, ylim)
		if within(xmid, xoff, xlim) && within(ymid, yoff, ylim) &&
			xmid+ymid > xoff+yoff && xmid+ymid < xlim+ylim {
			m.compare(xoff, xmid, yoff, ymid)
			m.compare(xmid, xlim, ymid, ylim)
			return
		}
	}
	// One side is empty (or, defensively, the split made no progress).
	for i := xoff; i < xlim; i++ {
		m.dx[i] = true
	}
	for j := yoff; j < ylim; j++ {
		m.dy[j] = true
	}
}

func within(v, lo, hi int) bool { return lo <= v && v <= hi }

// search is the state of one middle-snake search: the box being compared,
// its valid diagonals and the diagonals reached so far in each direction.
type search struct {
	xoff, xlim, yoff, ylim int
	dmin, dmax             int
	fmin, fmax, bmin, bmax int
	odd                    bool
}

// split returns a point on a shortest edit path through the box, found
// where the forward and backward searches meet (the "middle snake").
// Past its budget it returns the most advanced point found instead.
func (m *myers) split(xoff, xlim, yoff, ylim int) (int, int) {
	fmid, bmid := xoff-yoff, xlim-ylim
	s := search{
		xoff: xoff, xlim: xlim, yoff: yoff, ylim: ylim,
		dmin: xoff - ylim, dmax: xlim - yoff,
		fmin: fmid, fmax: fmid, bmin: bmid, bmax: bmid,
		odd: (fmid-bmid)&1 != 0,
	}
	m.fd[m.off+fmid] = int32(xoff)
	m.bd[m.off+bmid] = int32(xlim)
	for c := 1; ; c++ {
		if x, y, ok := m.forward(&s); ok {
			return x, y
		}
		if x, y, ok := m.backward(&s); ok {
			return x, y
		}
		if c >= m.limit && m.work > m.budget {
			return m.best(&s)
		}
	}
}

// forward extends the forward search by one edit on every diagonal.
func (m *myers) forward(s *search) (x, y int, ok bool) {
	fd, o := m.fd, m.off
	if s.fmin > s.dmin {
		s.fmin--
		fd[o+s.fmin-1] = -1
	} else {
		s.fmin++
	}
	if s.fmax < s.dmax {
		s.fmax++
		fd[o+s.fmax+1] = -1
	} else {
		s.fmax--
	}
	for d := s.fmax; d >= s.fmin; d -= 2 {
		x = int(max(fd[o+d-1]+1, fd[o+d+1]))
		y = x - d
		x0 := x
		for x < s.xlim && y < s.ylim && m.eq(x, y) {
			x, y = x+1, y+1
		}
		m.work += x - x0 + 1
		fd[o+d] = int32(x)
		if s.odd && s.bmin <= d && d <= s.bmax && int(m.bd[o+d]) <= x {
			return x, y, true
		}
	}
	return 0, 0, false
}

// backward extends the backward search by one edit on every diagonal.
func (m *myers) backward(s *search) (x, y int, ok bool) {
	bd, o := m.bd, m.off
	if s.bmin > s.dmin {
		s.bmin--
		bd[o+s.bmin-1] = math.MaxInt32
	} else {
		s.bmin++
	}
	if s.bmax < s.dmax {
		s.bmax++
		bd[o+s.bmax+1] = math.MaxInt32
	} else {
		s.bmax--
	}
	for d := s.bmax; d >= s.bmin; d -= 2 {
		x = int(min(bd[o+d-1], bd[o+d+1]-1))
		y = x - d
		x0 := x
		for x > s.xoff && y > s.yoff && m.eq(x-1, y-1) {
			x, y = x-1, y-1
		}
		m.work += x0 - x + 1
		bd[o+d] = int32(x)
		if !s.odd && s.fmin <= d && d <= s.fmax && x <= int(m.fd[o+d]) {
			return x, y, true
		}
	}
	return 0, 0, false
}

// best returns the point furthest from its start reached by either search,
// GNU diff's fallback when a minimal split is too expensive to find.
func (m *myers) best(s *search) (int, int) {
	fxy, fx := -1, 0
	for d := s.fmax; d >= s.fmin; d -= 2 {
		x := min(int(m.fd[m.off+d]), s.xlim)
		y := x - d
		if y > s.ylim {
			x, y = s.ylim+d, s.ylim
		}
		if x+y > fxy {
			fxy, fx = x+y, x
		}
	}
	bxy, bx := math.MaxInt, 0
	for d := s.bmax; d >= s.bmin; d -= 2 {
		x := max(int(m.bd[m.off+d]), s.xoff)
		y := x - d
		if y < s.yoff {
			x, y = s.yoff+d, s.yoff
		}
		if x+y < bxy {
			bxy, bx = x+y, x
		}
	}
	if s.xlim+s.ylim-bxy < fxy-(s.xoff+s.yoff) {
		return fx, fxy - fx
	}
	return bx, bxy - bx
}
