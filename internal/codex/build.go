package codex

import (
	"slices"
	"sort"
	"strings"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// Candidate is an entry found in the text without a model, with the uses
// behind it.
type Candidate struct {
	Entry Entry `json:"entry"`
	// Uses counts the occurrences of its names the finder read (headings
	// left out); Items the items holding them.
	Uses  int `json:"uses"`
	Items int `json:"items"`
	// First is the pointer of the first item naming it.
	First string `json:"first"`
	// Why says how its names were linked, one line per link.
	Why []string `json:"why,omitempty"`
}

// FindCandidates reads the items of a book and returns the characters and
// places the text names, most used first (see names.go, compound.go and
// group.go for the rules). A group of names becomes a candidate when its
// names are used at least twice, or once with a title, a patronymic or
// initials.
func FindCandidates(items []*document.Item) []Candidate {
	f := newFinder(items)
	comps, appositions := f.compounds(f.runs())
	groups, why := f.group(comps, appositions)
	owners := map[int]map[int]bool{} // cluster → groups using it
	for gi, g := range groups {
		for _, c := range g {
			for _, ci := range c.names {
				if owners[ci] == nil {
					owners[ci] = map[int]bool{}
				}
				owners[ci][gi] = true
			}
		}
	}
	var out []Candidate
	for _, g := range groups {
		c, ok := f.candidate(g, why)
		if !ok {
			continue
		}
		if c.Entry.Kind == Character {
			for _, s := range f.surnames(g, owners) {
				c.Entry.AddAlias(s)
			}
		}
		out = append(out, c)
	}
	return out
}

// surnames returns the surnames of a group's full names ("Штейн" of
// "Фёдор Карлович Штейн") that no other group uses: the surname alone
// names the same person, also where the finder did not read it (a
// heading). A surname that is also a word in lower case is left out.
func (f *finder) surnames(g []*compound, owners map[int]map[int]bool) []string {
	var out []string
	for _, c := range g {
		if len(c.names) < 2 {
			continue
		}
		last := c.parts[len(c.parts)-1]
		cl := f.clusters[last.cluster]
		if isPatronymic(textnorm.Fold(last.text)) || len(owners[last.cluster]) != 1 || cl.lower > 0 {
			continue
		}
		out = append(out, cl.display())
	}
	return out
}

// candidate turns a group of compound names into a candidate.
func (f *finder) candidate(g []*compound, why map[string]string) (Candidate, bool) {
	strong := false
	uses, loc := 0, 0
	items := map[int]bool{}
	first := -1
	for _, c := range g {
		uses += c.count
		loc += c.loc
		strong = strong || c.titled || c.patronym || len(c.inits) > 0
		for i := range c.items {
			items[i] = true
		}
		if first < 0 || c.first < first {
			first = c.first
		}
	}
	if uses < 2 && !strong {
		return Candidate{}, false
	}
	ordered := slices.Clone(g)
	sort.SliceStable(ordered, func(i, j int) bool {
		a, b := ordered[i], ordered[j]
		if (len(a.inits) == 0) != (len(b.inits) == 0) {
			return len(a.inits) == 0
		}
		if a.count != b.count {
			return a.count > b.count
		}
		if len(a.parts) != len(b.parts) {
			return len(a.parts) > len(b.parts)
		}
		return a.key < b.key
	})
	e := Entry{Kind: Character, Name: f.display(ordered[0]), Origin: FromText}
	if !strong && 10*loc >= 4*uses {
		e.Kind = Place
	}
	var reasons []string
	for _, c := range ordered[1:] {
		e.AddAlias(f.display(c))
	}
	for _, c := range ordered {
		e.AddAlias(f.variantDisplays(c)...)
	}
	for _, c := range ordered {
		if r := why[c.key]; r != "" {
			reasons = append(reasons, r)
		}
	}
	return Candidate{Entry: e, Uses: uses, Items: len(items), First: f.items[first].item.Pointer().String(), Why: reasons}, true
}

// display writes a compound name in its usual form: each name in its
// cluster's usual form, abbreviated titles and initials with their full
// stop.
func (f *finder) display(c *compound) string {
	ws := make([]string, len(c.parts))
	for i, p := range c.parts {
		switch p.kind {
		case pName:
			ws[i] = f.clusters[p.cluster].display()
		case pInitial:
			ws[i] = strings.ToUpper(p.text) + "."
		case pTitle:
			ws[i] = p.text
			if abbreviations[p.norm] {
				ws[i] += "."
			}
		default:
			ws[i] = p.text
		}
	}
	return strings.Join(ws, " ")
}

// variantDisplays writes a compound name with each other variant of its
// names (Антон Антонович beside Антон Антоныч), so that every variant is
// an alias the matching finds.
func (f *finder) variantDisplays(c *compound) []string {
	var out []string
	for i, p := range c.parts {
		if p.kind != pName {
			continue
		}
		vs := f.clusters[p.cluster].variants()
		for _, v := range vs[1:] {
			ws := strings.Fields(f.display(c))
			if len(ws) != len(c.parts) {
				break
			}
			ws[i] = v
			out = append(out, strings.Join(ws, " "))
		}
	}
	return out
}

// BuildReport says what a build found and changed.
type BuildReport struct {
	Candidates []Candidate `json:"candidates"`
	// Added, Updated and Kept count entries: new ones from the text, text
	// entries refreshed, and entries kept as they were (the user's, the
	// model's and imported ones, and candidates they already cover).
	Added   int `json:"added"`
	Updated int `json:"updated"`
	Kept    int `json:"kept"`
	// Removed counts text entries the text no longer supports.
	Removed int `json:"removed"`
	// Skipped lists candidates left out because the user removed them
	// before (Codex.Rejected).
	Skipped []string `json:"skipped,omitempty"`
	// Suggestions are names the text links to an existing entry that does
	// not list them yet (they are not added to entries made by the user or
	// a model).
	Suggestions map[string][]string `json:"suggestions,omitempty"`
}

// Build finds the candidates of a book's items and merges them into old (a
// copy; nil is an empty codex): entries made by the user, a model or an
// import are kept as they are, and a candidate that shares a name with one
// of them is not added again (its other names become suggestions); entries
// found in the text before are replaced by what the text says now, keeping
// their IDs; candidates whose names the user removed are skipped.
func Build(items []*document.Item, old *Codex) (*Codex, BuildReport) {
	if old == nil {
		old = &Codex{}
	}
	cands := FindCandidates(items)
	out := &Codex{Rejected: slices.Clone(old.Rejected)}
	rep := BuildReport{Candidates: cands}
	var fromText []Entry
	for _, e := range old.Entries {
		if e.Origin == FromText {
			fromText = append(fromText, e)
			continue
		}
		out.Entries = append(out.Entries, e.clone())
		rep.Kept++
	}
	used := map[string]bool{}
	kept := NewMatcher(out.Entries)
	for _, c := range cands {
		e := c.Entry
		if out.rejected(e.Names()) {
			rep.Skipped = append(rep.Skipped, e.Name)
			continue
		}
		if owner := out.owner(kept, e.Names()); owner != nil {
			for _, n := range e.Names() {
				if out.owner(NewMatcher([]Entry{*owner}), []string{n}) == nil {
					if rep.Suggestions == nil {
						rep.Suggestions = map[string][]string{}
					}
					rep.Suggestions[owner.ID] = append(rep.Suggestions[owner.ID], n)
				}
			}
			continue
		}
		if prev := previous(fromText, e.Names(), used); prev != nil {
			e.ID = prev.ID
			e.Description, e.Notes, e.Relations, e.Facts = prev.Description, prev.Notes, prev.Relations, prev.Facts
			used[prev.ID] = true
			rep.Updated++
		} else {
			rep.Added++
		}
		if _, err := out.Add(e); err != nil {
			continue // an ID taken by a kept entry: cannot happen for a fresh slug
		}
	}
	rep.Removed = len(fromText) - len(used)
	return out, rep
}

// owner returns the entry of m that has one of the names, in any form
// (the whole name is one mention of it).
func (c *Codex) owner(m *Matcher, names []string) *Entry {
	for _, n := range names {
		for _, x := range m.Scan(n) {
			if x.Start == 0 && x.End == len(n) {
				return c.byID(x.Entry)
			}
		}
	}
	return nil
}

// rejected reports whether one of the names was removed by the user.
func (c *Codex) rejected(names []string) bool {
	for _, n := range names {
		if containsFold(c.Rejected, n) {
			return true
		}
	}
	return false
}

// previous returns the text entry of an earlier build that shares a name.
func previous(entries []Entry, names []string, used map[string]bool) *Entry {
	for i := range entries {
		if used[entries[i].ID] {
			continue
		}
		for _, n := range names {
			if entries[i].HasName(n) {
				return &entries[i]
			}
		}
	}
	return nil
}
