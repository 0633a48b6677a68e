package cursor

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/aitexteditor/aite/internal/document"
)

// Registry holds the cursors and target sets of one session over one
// document.
type Registry struct {
	cursors map[string]*Cursor
	seq     int
	targets map[string]*targetSet
	tseq    int
}

// NewRegistry returns a registry with the two default cursors.
func NewRegistry(d *document.Document) *Registry {
	r := &Registry{cursors: map[string]*Cursor{}, targets: map[string]*targetSet{}}
	fwd, back := NewSpec(FullScan), NewSpec(FullScan)
	fwd.Name, back.Name, back.Backward = WholeBookForward, WholeBookBackward, true
	for _, s := range []Spec{fwd, back} {
		if _, err := r.Create(d, s); err != nil {
			panic(err) // the default specs are valid
		}
	}
	return r
}

// Create makes a cursor; a cursor of the same name is replaced (re-creating
// a name resets it). A missing name is generated (`kwd_cursor_0`, …).
func (r *Registry) Create(d *document.Document, spec Spec) (Info, error) {
	defaults := spec.MaxElements == 0 && spec.MaxBytes == 0
	if err := spec.check(); err != nil {
		return Info{}, err
	}
	if spec.Name == "" {
		spec.Name = r.freeName(spec.Type)
	}
	c, err := newCursor(d, spec)
	if err != nil {
		return Info{}, err
	}
	c.defaultLimits = defaults
	r.cursors[spec.Name] = c
	return c.info(), nil
}

func (r *Registry) freeName(t Type) string {
	for {
		name := t.prefix() + "_cursor_" + strconv.Itoa(r.seq)
		r.seq++
		if r.cursors[name] == nil {
			return name
		}
	}
}

func (r *Registry) get(name string) (*Cursor, error) {
	c := r.cursors[name]
	if c == nil {
		return nil, &StateError{Err: ErrNotDefined, Msg: fmt.Sprintf("Cursor '%s' is not defined", name)}
	}
	return c, nil
}

// Next returns the cursor's next portion. x may be nil.
func (r *Registry) Next(d *document.Document, x KeywordIndex, name string) (Portion, error) {
	c, err := r.get(name)
	if err != nil {
		return Portion{}, err
	}
	return c.next(d, x, name)
}

// NeedsIndex reports whether the next portion of the named cursor would
// use a keyword index: a keyword cursor whose matches are not current for
// d. Callers build an index only then (building one costs about a parse).
func (r *Registry) NeedsIndex(d *document.Document, name string) bool {
	c, err := r.get(name)
	return err == nil && c.spec.Type != Search && len(c.spec.Keywords) > 0 && !c.current(d)
}

// Reset puts a cursor back before its first item (after its start pointer).
func (r *Registry) Reset(name string) error {
	c, err := r.get(name)
	if err != nil {
		return err
	}
	c.rewind()
	return nil
}

// Delete removes a cursor.
func (r *Registry) Delete(name string) error {
	if _, err := r.get(name); err != nil {
		return err
	}
	delete(r.cursors, name)
	return nil
}

// Get describes a cursor.
func (r *Registry) Get(name string) (Info, error) {
	c, err := r.get(name)
	if err != nil {
		return Info{}, err
	}
	return c.info(), nil
}

// List describes every cursor, by name.
func (r *Registry) List() []Info {
	out := make([]Info, 0, len(r.cursors))
	for _, c := range r.cursors {
		out = append(out, c.info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (c *Cursor) info() Info {
	return Info{Spec: c.spec, Complete: c.complete, DefaultLimits: c.defaultLimits}
}
