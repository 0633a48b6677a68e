package document

import (
	"errors"
	"fmt"
)

// ErrRange is wrapped by errors for out-of-range counts and limits.
var ErrRange = errors.New("out of range")

// MaxNeighbours bounds the before/after counts of Read.
const MaxNeighbours = 200

// Read returns the item a pointer names with up to before items ahead of it
// and after items behind it, in document order, and the position of the
// named item in the result.
func (d *Document) Read(ptr string, before, after int) ([]*Item, int, error) {
	if before < 0 || before > MaxNeighbours || after < 0 || after > MaxNeighbours {
		return nil, 0, fmt.Errorf("%w: before and after must be between 0 and %d (got %d and %d)",
			ErrRange, MaxNeighbours, before, after)
	}
	it, err := d.Resolve(ptr)
	if err != nil {
		return nil, 0, err
	}
	from := max(0, it.Index()-before)
	to := min(d.Len(), it.Index()+after+1)
	return d.span(from, to), it.Index() - from, nil
}

// Range lists up to limit items starting at the item from names (the first
// item when from is empty) that pass keep (all when keep is nil).
func (d *Document) Range(from string, limit int, keep func(*Item) bool) ([]*Item, error) {
	if limit < 1 {
		return nil, fmt.Errorf("%w: limit must be at least 1 (got %d)", ErrRange, limit)
	}
	start := 0
	if from != "" {
		it, err := d.Resolve(from)
		if err != nil {
			return nil, err
		}
		start = it.Index()
	}
	var out []*Item
	for i := start; i < d.Len(); i++ {
		if len(out) == limit {
			break
		}
		if it := d.item(i); keep == nil || keep(it) {
			out = append(out, it)
		}
	}
	return out, nil
}

// Section is one heading of the outline with its subsections.
type Section struct {
	Heading *Item
	// Items counts the non-heading items directly under the heading.
	Items int
	// Total counts every item under the heading, subsections included
	// (the heading itself excluded).
	Total    int
	Children []*Section
}

// Outline returns the heading tree. Items before the first heading are
// counted in the returned preamble count.
func (d *Document) Outline() (sections []*Section, preamble int) {
	var stack []*Section
	var cur *Section
	for i := range d.Len() {
		if h, _ := d.headingAt(i); !h {
			if cur == nil {
				preamble++
			} else {
				cur.Items++
			}
			for _, s := range stack {
				s.Total++
			}
			continue
		}
		it := d.item(i)
		s := &Section{Heading: it}
		for len(stack) > 0 && stack[len(stack)-1].Heading.Level >= it.Level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			sections = append(sections, s)
		} else {
			parent := stack[len(stack)-1]
			parent.Children = append(parent.Children, s)
		}
		for _, p := range stack {
			p.Total++
		}
		stack = append(stack, s)
		cur = s
	}
	return sections, preamble
}

// SectionEnd returns the index just past the section that the heading at
// index i opens: the next heading of the same or a higher level, or the end.
// For a non-heading item it returns i+1.
func (d *Document) SectionEnd(i int) int {
	if i < 0 || i >= d.Len() {
		return i + 1
	}
	h, level := d.headingAt(i)
	if !h {
		return i + 1
	}
	j := i + 1
	for ; j < d.Len(); j++ {
		if h, l := d.headingAt(j); h && l <= level {
			break
		}
	}
	return j
}
