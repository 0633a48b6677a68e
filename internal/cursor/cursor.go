package cursor

import (
	"fmt"
	"math"
	"regexp"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// KeywordIndex answers keyword filters quickly; search.Index implements it.
// Without one, keywords are matched by scanning item text.
type KeywordIndex interface {
	ItemsMatching(keywords []string) []int
}

// Cursor is one named stream over a document.
type Cursor struct {
	spec     Spec
	regex    *regexp.Regexp
	kinds    map[document.Kind]bool
	withinID int
	// position: after lastID (in the walking direction); frontierID is the
	// item that followed it, used when lastID has been deleted.
	lastID, lastIdx, frontierID int
	complete                    bool
	defaultLimits               bool
	taken                       int // items returned since the last reset
	// where a reset puts the cursor (its start pointer, if any)
	startID, startIdx, startFrontier int
	// matches are the indices of passing items for one document version.
	version int
	matches []int
}

// Item is one item of a portion.
type Item struct {
	Pointer  pointer.Pointer `json:"pointer"`
	Kind     document.Kind   `json:"kind"`
	Level    int             `json:"level,omitempty"`
	Index    int             `json:"index"`
	Markdown string          `json:"markdown,omitempty"`
}

// Portion is what Next returns.
type Portion struct {
	CursorName       string `json:"cursorName"`
	Items            []Item `json:"items"`
	HasMore          bool   `json:"hasMore"`
	NextAfterPointer string `json:"nextAfterPointer,omitempty"`
	// Remaining counts the items still ahead that pass the filters.
	Remaining int `json:"remaining"`
}

// Info describes a cursor.
type Info struct {
	Spec
	Complete bool `json:"complete"`
	// DefaultLimits is true when maxElements and maxBytes were left to
	// the defaults (a cursor agent then sizes batches for its task).
	DefaultLimits bool `json:"defaultLimits,omitempty"`
}

func newCursor(d *document.Document, spec Spec) (*Cursor, error) {
	c := &Cursor{spec: spec, version: -1}
	if spec.Regex != "" {
		c.regex = regexp.MustCompile(spec.Regex) // checked by Spec.check
	}
	if len(spec.Kinds) > 0 {
		c.kinds = map[document.Kind]bool{}
		for _, k := range spec.Kinds {
			kind, _ := document.ParseKind(string(k))
			c.kinds[kind] = true
		}
	}
	if spec.Within != "" {
		it, err := d.Resolve(spec.Within)
		if err != nil {
			return nil, fmt.Errorf("%w: within: %w", ErrSpec, err)
		}
		if it.Kind != document.Heading {
			return nil, specErr("within must name a heading (its section is searched); %s is a %s", it.Pointer(), it.Kind)
		}
		c.withinID = it.ID
	}
	c.startIdx = -1
	if spec.Backward {
		c.startIdx = math.MaxInt32 // after the end, however the book grows
	}
	if spec.StartAfter != "" {
		it, err := d.Resolve(spec.StartAfter)
		if err != nil {
			return nil, fmt.Errorf("%w: startAfterPointer: %w", ErrSpec, err)
		}
		c.startID, c.startIdx = it.ID, it.Index()
		c.startFrontier = neighbourID(d, it.Index(), spec.Backward)
	}
	c.rewind()
	return c, nil
}

// rewind puts the cursor back at its start.
func (c *Cursor) rewind() {
	c.complete, c.taken = false, 0
	c.lastID, c.lastIdx, c.frontierID = c.startID, c.startIdx, c.startFrontier
}

func neighbourID(d *document.Document, i int, backward bool) int {
	if backward {
		i--
	} else {
		i++
	}
	if it := d.At(i); it != nil {
		return it.ID
	}
	return 0
}

// current reports whether the cursor's matches are those of d's version.
func (c *Cursor) current(d *document.Document) bool {
	return c.version == d.Version() && c.matches != nil
}

// refresh recomputes the matching item indices for the document version.
func (c *Cursor) refresh(d *document.Document, x KeywordIndex) {
	if c.current(d) {
		return
	}
	c.version = d.Version()
	c.matches = c.matches[:0]
	from, to := 0, d.Len()
	if w := d.ByID(c.withinID); w != nil {
		from, to = w.Index(), d.SectionEnd(w.Index())
	}
	if c.spec.Type == Search {
		c.matchIDs(d, from, to)
		return
	}
	if len(c.spec.Keywords) > 0 && x != nil {
		// The index names the candidates: no need to visit every item.
		for _, id := range x.ItemsMatching(c.spec.Keywords) {
			if it := d.ByID(id); it != nil && it.Index() >= from && it.Index() < to && c.pass(it.Kind, it.Text) {
				c.matches = append(c.matches, it.Index())
			}
		}
		sort.Ints(c.matches)
		return
	}
	if cap(c.matches) < to-from {
		c.matches = make([]int, 0, to-from)
	}
	var ms []*textnorm.Matcher
	for _, k := range c.spec.Keywords {
		ms = append(ms, textnorm.NewMatcher(k))
	}
	n := 1
	if ms != nil && to-from >= 2*scanChunk { // matching words costs: on every core
		n = min(runtime.GOMAXPROCS(0), (to-from)/scanChunk)
	}
	if n == 1 {
		c.matches = c.scan(d, from, to, ms, c.matches)
		return
	}
	// Runs of items cost as much as their words do (a keyword without
	// ASCII skips an English text at once): the cores take runs of
	// scanChunk/4 items in turn, so none waits while another has a long
	// way to go.
	run := scanChunk / 4
	parts := make([][]int, (to-from+run-1)/run)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(parts); k = int(next.Add(1) - 1) {
				lo := from + k*run
				parts[k] = c.scan(d, lo, min(lo+run, to), ms, nil)
			}
		})
	}
	wg.Wait()
	for _, p := range parts {
		c.matches = append(c.matches, p...)
	}
}

// scanChunk is the fewest items a core scans for the words of a keyword
// cursor without an index.
const scanChunk = 2048

// scan appends to out the indices in [from, to) of the items that pass
// the filters and, with ms, hold a keyword. It only reads the document
// (a decoded one builds no item for it), so scans run side by side.
func (c *Cursor) scan(d *document.Document, from, to int, ms []*textnorm.Matcher, out []int) []int {
	for i := from; i < to; i++ {
		if text := d.TextAt(i); c.pass(d.KindAt(i), text) && (ms == nil || anyMatch(ms, text)) {
			out = append(out, i)
		}
	}
	return out
}

// matchIDs keeps the search cursor's order; deleted items and items
// outside [from, to) (the section of Within) are skipped.
func (c *Cursor) matchIDs(d *document.Document, from, to int) {
	for _, id := range c.spec.IDs {
		if it := d.ByID(id); it != nil && it.Index() >= from && it.Index() < to && c.pass(it.Kind, it.Text) {
			c.matches = append(c.matches, it.Index())
		}
	}
}

// pass applies the filters other than keywords (cheap ones first).
func (c *Cursor) pass(kind document.Kind, text string) bool {
	switch {
	case !c.spec.IncludeHeadings && kind == document.Heading:
		return false
	case c.kinds != nil && !c.kinds[kind]:
		return false
	case c.regex != nil && !c.regex.MatchString(text):
		return false
	}
	return true
}

func anyMatch(ms []*textnorm.Matcher, text string) bool {
	for _, m := range ms {
		if m.Match(text) {
			return true
		}
	}
	return false
}

// order returns the positions in c.matches in walking order.
func (c *Cursor) order(k int) int {
	if c.spec.Backward {
		return len(c.matches) - 1 - k
	}
	return k
}

// start returns the first walking position after the cursor's position.
func (c *Cursor) start(d *document.Document) int {
	if c.spec.Type == Search {
		return c.searchStart(d)
	}
	pos, inclusive := min(c.lastIdx, d.Len()), false
	if it := d.ByID(c.lastID); it != nil {
		pos = it.Index()
	} else if f := d.ByID(c.frontierID); c.lastID != 0 && f != nil {
		pos, inclusive = f.Index(), true
	} else if c.lastID != 0 {
		pos = min(c.lastIdx, d.Len())
		inclusive = !c.spec.Backward
	}
	if c.spec.Backward {
		// matches are ascending: count those before pos (or at it, inclusive)
		n := sort.SearchInts(c.matches, pos)
		if inclusive && n < len(c.matches) && c.matches[n] == pos {
			n++
		}
		return len(c.matches) - n
	}
	if inclusive {
		return sort.SearchInts(c.matches, pos)
	}
	return sort.SearchInts(c.matches, pos+1)
}

// searchStart finds the walking position after the last returned item in
// the search order (IDs keep their order across edits).
func (c *Cursor) searchStart(d *document.Document) int {
	if c.lastID == 0 {
		return 0
	}
	frontier := -1
	for k := range c.matches {
		switch d.At(c.matches[c.order(k)]).ID {
		case c.lastID:
			return k + 1
		case c.frontierID:
			frontier = k
		}
	}
	if frontier >= 0 {
		return frontier
	}
	return min(c.taken, len(c.matches))
}

// next returns the next portion.
func (c *Cursor) next(d *document.Document, x KeywordIndex, name string) (Portion, error) {
	if c.complete {
		return Portion{}, &StateError{Err: ErrComplete,
			Msg: fmt.Sprintf("Cursor '%s' is complete, reset it before requesting more portions.", name)}
	}
	c.refresh(d, x)
	k := c.start(d)
	p := Portion{CursorName: name, Items: []Item{}}
	size := 0
	for ; k < len(c.matches) && len(p.Items) < c.spec.MaxElements; k++ {
		it := d.At(c.matches[c.order(k)])
		n := 0
		if c.spec.IncludeContent {
			n = it.End() - it.Start()
		}
		if len(p.Items) > 0 && size+n > c.spec.MaxBytes {
			break
		}
		size += n
		p.Items = append(p.Items, c.item(d, it))
		c.lastID, c.lastIdx = it.ID, it.Index()
		c.frontierID = neighbourID(d, it.Index(), c.spec.Backward)
		if c.spec.Type == Search {
			c.frontierID = c.searchNeighbour(d, k)
		}
		c.taken++
	}
	p.HasMore = k < len(c.matches)
	p.Remaining = len(c.matches) - k
	if n := len(p.Items); n > 0 {
		p.NextAfterPointer = p.Items[n-1].Pointer.String()
	}
	c.complete = !p.HasMore
	return p, nil
}

func (c *Cursor) searchNeighbour(d *document.Document, k int) int {
	if k+1 < len(c.matches) {
		return d.At(c.matches[c.order(k+1)]).ID
	}
	return 0
}

func (c *Cursor) item(d *document.Document, it *document.Item) Item {
	out := Item{Pointer: it.Pointer(), Kind: it.Kind, Level: it.Level, Index: it.Index()}
	if c.spec.IncludeContent {
		out.Markdown = d.Markdown(it)
	}
	return out
}

// StateError carries the exact texts of the cursor-state errors of § 6.
type StateError struct {
	Msg string
	Err error
}

func (e *StateError) Error() string { return e.Msg }

// Unwrap returns ErrNotDefined or ErrComplete.
func (e *StateError) Unwrap() error { return e.Err }
