package cursor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/pointer"
)

// targetSet is a named selection of items, stored by ID so it survives edits.
type targetSet struct {
	ids []int
	has map[int]bool
}

// TargetReport answers Create and Add: what was taken and what not.
type TargetReport struct {
	Name            string           `json:"name"`
	Count           int              `json:"count"`
	Added           int              `json:"added"`
	InvalidPointers []InvalidPointer `json:"invalidPointers"`
	Warnings        []string         `json:"warnings"`
}

// InvalidPointer is a pointer that named no item, with the reason.
type InvalidPointer struct {
	Pointer string `json:"pointer"`
	Error   string `json:"error"`
}

// Target is one item of a target set as it is now.
type Target struct {
	Pointer pointer.Pointer `json:"pointer"`
	Kind    document.Kind   `json:"kind"`
	Excerpt string          `json:"excerpt"`
}

// TargetView is a target set in document order.
type TargetView struct {
	Name  string   `json:"name"`
	Items []Target `json:"items"`
	// Deleted counts items of the set that no longer exist.
	Deleted int `json:"deleted"`
}

// TargetSummary names a target set and its size.
type TargetSummary struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

const excerptRunes = 160

// CreateTargets makes (or replaces) a target set from pointers. Pointers
// that name nothing are reported, not fatal; duplicates and stale labels
// give warnings.
func (r *Registry) CreateTargets(d *document.Document, name string, ptrs []string) (TargetReport, error) {
	name = strings.TrimSpace(name)
	if len([]rune(name)) > MaxNameLength {
		return TargetReport{}, fmt.Errorf("%w: a target set name has at most %d characters", ErrTargets, MaxNameLength)
	}
	if name == "" {
		name = "targets_" + strconv.Itoa(r.tseq)
		r.tseq++
	}
	rep := TargetReport{Name: name}
	if r.targets[name] != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("target set '%s' existed and was replaced", name))
	}
	r.targets[name] = &targetSet{has: map[int]bool{}}
	return r.add(d, name, ptrs, rep), nil
}

// AddTargets adds items to an existing target set.
func (r *Registry) AddTargets(d *document.Document, name string, ptrs []string) (TargetReport, error) {
	if r.targets[name] == nil {
		return TargetReport{}, r.noTargets(name)
	}
	return r.add(d, name, ptrs, TargetReport{Name: name}), nil
}

func (r *Registry) add(d *document.Document, name string, ptrs []string, rep TargetReport) TargetReport {
	ts := r.targets[name]
	rep.InvalidPointers, rep.Warnings = []InvalidPointer{}, append([]string{}, rep.Warnings...)
	for _, p := range ptrs {
		it, err := d.Resolve(p)
		if err != nil {
			rep.InvalidPointers = append(rep.InvalidPointers, InvalidPointer{Pointer: p, Error: err.Error()})
			continue
		}
		if q, err := pointer.Parse(p); err == nil && q.ID > 0 && q.Label != "" && q.Label != it.Label {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("pointer %s has a stale label: the item is now %s", p, it.Pointer()))
		}
		if ts.has[it.ID] {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("pointer %s names %s, already in the set; kept once", p, it.Pointer()))
			continue
		}
		ts.has[it.ID] = true
		ts.ids = append(ts.ids, it.ID)
		rep.Added++
	}
	rep.Count = len(ts.ids)
	return rep
}

func (r *Registry) noTargets(name string) error {
	return fmt.Errorf("%w: target set '%s' is not defined", ErrTargets, name)
}

// GetTargets returns a target set's items in document order with their
// current pointers and excerpts.
func (r *Registry) GetTargets(d *document.Document, name string) (TargetView, error) {
	ts := r.targets[name]
	if ts == nil {
		return TargetView{}, r.noTargets(name)
	}
	v := TargetView{Name: name, Items: []Target{}}
	var live []*document.Item
	for _, id := range ts.ids {
		if it := d.ByID(id); it != nil {
			live = append(live, it)
		} else {
			v.Deleted++
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].Index() < live[j].Index() })
	for _, it := range live {
		v.Items = append(v.Items, Target{Pointer: it.Pointer(), Kind: it.Kind, Excerpt: Excerpt(it.Text, excerptRunes)})
	}
	return v, nil
}

// TargetIDs returns the IDs of a target set's live items in document order.
func (r *Registry) TargetIDs(d *document.Document, name string) ([]int, error) {
	v, err := r.GetTargets(d, name)
	if err != nil {
		return nil, err
	}
	ids := make([]int, len(v.Items))
	for i, t := range v.Items {
		ids[i] = t.Pointer.ID
	}
	return ids, nil
}

// ListTargets summarises the target sets by name.
func (r *Registry) ListTargets() []TargetSummary {
	out := make([]TargetSummary, 0, len(r.targets))
	for name, ts := range r.targets {
		out = append(out, TargetSummary{Name: name, Count: len(ts.ids)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DeleteTargets removes a target set.
func (r *Registry) DeleteTargets(name string) error {
	if r.targets[name] == nil {
		return r.noTargets(name)
	}
	delete(r.targets, name)
	return nil
}

// Excerpt shortens text to at most n runes on one line, with … when cut.
func Excerpt(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	r := []rune(text)
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return cut + "…"
}
