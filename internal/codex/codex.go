package codex

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// Codex is a book's reference data: its entries, in the order they were
// made. The zero value is an empty codex.
type Codex struct {
	Entries []Entry `json:"entries"`
	// Rejected holds the names of entries found in the text that the user
	// removed, so that a later build does not bring them back.
	Rejected []string `json:"rejected,omitempty"`
}

// Clone returns a deep copy.
func (c *Codex) Clone() *Codex {
	out := &Codex{Entries: make([]Entry, len(c.Entries)), Rejected: slices.Clone(c.Rejected)}
	for i, e := range c.Entries {
		out.Entries[i] = e.clone()
	}
	return out
}

// Len returns the number of entries.
func (c *Codex) Len() int { return len(c.Entries) }

// Find returns the entry an ID, name or alias names (case and ё/е
// ignored). An ID wins over names; a name shared by several entries is an
// error wrapping ErrAmbiguous that lists their IDs; none is ErrNotFound
// with the closest names.
func (c *Codex) Find(ref string) (*Entry, error) {
	f := textnorm.Fold(strings.TrimSpace(ref))
	for i := range c.Entries {
		if textnorm.Fold(c.Entries[i].ID) == f {
			return &c.Entries[i], nil
		}
	}
	var hits []int
	for i := range c.Entries {
		if containsFold(c.Entries[i].Names(), ref) {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		hits = c.byForm(ref) // another form of a name: Раскольникова, Darcy's
	}
	switch len(hits) {
	case 1:
		return &c.Entries[hits[0]], nil
	case 0:
		return nil, fmt.Errorf("%w: %q%s", ErrNotFound, ref, c.suggest(ref))
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = c.Entries[h].ID
	}
	return nil, fmt.Errorf("%w: %q names %d entries (%s); give the ID", ErrAmbiguous, ref, len(hits), strings.Join(ids, ", "))
}

// byForm returns the entries one of whose names ref is a form of.
func (c *Codex) byForm(ref string) []int {
	var hits []int
	for i, e := range c.Entries {
		if slices.ContainsFunc(e.Names(), func(n string) bool { return SameName(n, strings.TrimSpace(ref)) }) {
			hits = append(hits, i)
		}
	}
	return hits
}

// suggest names entries whose names start like ref (for error messages).
func (c *Codex) suggest(ref string) string {
	f := textnorm.Fold(strings.TrimSpace(ref))
	if len([]rune(f)) > 3 {
		f = string([]rune(f)[:3])
	}
	var near []string
	for _, e := range c.Entries {
		for _, n := range e.Names() {
			if strings.HasPrefix(textnorm.Fold(n), f) && len(near) < 5 {
				near = append(near, fmt.Sprintf("%s (%s)", n, e.ID))
				break
			}
		}
	}
	if len(near) == 0 {
		if len(c.Entries) == 0 {
			return "; the codex is empty (build it with `aite codex build BOOK` or add entries)"
		}
		return ""
	}
	return "; did you mean " + strings.Join(near, ", ") + "?"
}

// Add adds an entry and returns it as stored: its kind defaults to
// character, its ID is made from its name when empty (a slug, unique in the
// codex), names are trimmed and aliases repeating a name dropped.
func (c *Codex) Add(e Entry) (*Entry, error) {
	e = e.clone()
	if err := c.normalize(&e, -1); err != nil {
		return nil, err
	}
	c.Entries = append(c.Entries, e)
	return &c.Entries[len(c.Entries)-1], nil
}

// Replace stores e in place of the entry with its ID (which must exist),
// after the checks of Add.
func (c *Codex) Replace(e Entry) (*Entry, error) {
	i := slices.IndexFunc(c.Entries, func(x Entry) bool { return x.ID == e.ID })
	if i < 0 {
		return nil, fmt.Errorf("%w: no entry has the ID %q", ErrNotFound, e.ID)
	}
	e = e.clone()
	if err := c.normalize(&e, i); err != nil {
		return nil, err
	}
	c.Entries[i] = e
	return &c.Entries[i], nil
}

// normalize checks an entry about to be stored at index at (-1: a new
// one).
func (c *Codex) normalize(e *Entry, at int) error {
	e.Name = strings.TrimSpace(e.Name)
	if e.Name == "" {
		return fmt.Errorf("%w: an entry needs a name", ErrInvalid)
	}
	if e.Kind == "" {
		e.Kind = Character
	}
	if !slices.Contains(Kinds, e.Kind) {
		k, err := ParseKind(string(e.Kind))
		if err != nil {
			return err
		}
		e.Kind = k
	}
	aliases := e.Aliases
	e.Aliases = nil
	e.AddAlias(aliases...)
	for _, r := range e.Relations {
		if strings.TrimSpace(r.Type) == "" || strings.TrimSpace(r.Target) == "" {
			return fmt.Errorf("%w: a relation of %q needs a type and a target", ErrInvalid, e.Name)
		}
	}
	for _, f := range e.Facts {
		if strings.TrimSpace(f.Text) == "" {
			return fmt.Errorf("%w: a fact of %q has no text", ErrInvalid, e.Name)
		}
	}
	if e.ID == "" {
		e.ID = c.uniqueID(Slug(e.Name))
		return nil
	}
	for i, x := range c.Entries {
		if i != at && x.ID == e.ID {
			return fmt.Errorf("%w: the ID %q is already used by %q", ErrInvalid, e.ID, x.Name)
		}
	}
	return nil
}

// uniqueID returns base, or base-2, base-3, … if taken.
func (c *Codex) uniqueID(base string) string {
	taken := map[string]bool{}
	for _, e := range c.Entries {
		taken[e.ID] = true
	}
	id := base
	for n := 2; taken[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	return id
}

// Slug makes an entry ID from a name: folded (lower case, ё → е), letters
// and digits kept, every other run of characters one "-".
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range textnorm.Fold(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "entry"
	}
	return b.String()
}

// Remove deletes the entry ref names and returns it. Relations of other
// entries that point at it are kept, with its name as their target. The
// names of an entry found in the text are remembered as rejected, so a
// later build does not add it again.
func (c *Codex) Remove(ref string) (Entry, error) {
	e, err := c.Find(ref)
	if err != nil {
		return Entry{}, err
	}
	gone := *e
	c.Entries = slices.DeleteFunc(c.Entries, func(x Entry) bool { return x.ID == gone.ID })
	c.retarget(gone.ID, gone.Name)
	if gone.Origin == FromText {
		for _, n := range gone.Names() {
			if !containsFold(c.Rejected, n) {
				c.Rejected = append(c.Rejected, n)
			}
		}
	}
	return gone, nil
}

// Merge folds the entries froms into the entry into: their names become
// aliases, their facts and relations are added (without repeats), their
// descriptions and notes appended when they differ. Relations that pointed
// at a merged entry point at into. It returns the merged entry.
func (c *Codex) Merge(into string, froms ...string) (*Entry, error) {
	target, err := c.Find(into)
	if err != nil {
		return nil, err
	}
	id := target.ID
	for _, f := range froms {
		src, err := c.Find(f)
		if err != nil {
			return nil, err
		}
		if src.ID == id {
			return nil, fmt.Errorf("%w: cannot merge %q into itself", ErrInvalid, f)
		}
		s := src.clone()
		c.Entries = slices.DeleteFunc(c.Entries, func(x Entry) bool { return x.ID == s.ID })
		t := c.byID(id)
		absorb(t, s)
		c.retarget(s.ID, id)
	}
	return c.byID(id), nil
}

// absorb adds src's names, facts, relations and texts to t.
func absorb(t *Entry, src Entry) {
	t.AddAlias(src.Names()...)
	for _, f := range src.Facts {
		if !slices.ContainsFunc(t.Facts, func(x Fact) bool { return x.Text == f.Text }) {
			t.Facts = append(t.Facts, f)
		}
	}
	for _, r := range src.Relations {
		if r.Target != t.ID && !slices.Contains(t.Relations, r) {
			t.Relations = append(t.Relations, r)
		}
	}
	t.Description = joinText(t.Description, src.Description)
	t.Notes = joinText(t.Notes, src.Notes)
	t.Confirmed = t.Confirmed || src.Confirmed
}

func joinText(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case b == "" || strings.Contains(a, b):
		return a
	case a == "":
		return b
	}
	return a + "\n" + b
}

// retarget points relations at from to to, dropping self-relations.
func (c *Codex) retarget(from, to string) {
	for i := range c.Entries {
		e := &c.Entries[i]
		for j := range e.Relations {
			if e.Relations[j].Target == from {
				e.Relations[j].Target = to
			}
		}
		e.Relations = slices.DeleteFunc(e.Relations, func(r Relation) bool { return r.Target == e.ID })
	}
}

func (c *Codex) byID(id string) *Entry {
	for i := range c.Entries {
		if c.Entries[i].ID == id {
			return &c.Entries[i]
		}
	}
	return nil
}

// Validate checks every entry (names, kinds, unique IDs).
func (c *Codex) Validate() error {
	seen := map[string]bool{}
	for i := range c.Entries {
		e := c.Entries[i].clone()
		if e.ID == "" {
			return fmt.Errorf("%w: entry %d (%q) has no ID", ErrInvalid, i+1, e.Name)
		}
		if seen[e.ID] {
			return fmt.Errorf("%w: the ID %q is used twice", ErrInvalid, e.ID)
		}
		seen[e.ID] = true
		tmp := Codex{}
		if err := tmp.normalize(&e, -1); err != nil {
			return fmt.Errorf("entry %q: %w", c.Entries[i].ID, err)
		}
	}
	return nil
}

// Shared lists the names that name more than one entry, each with the IDs
// of its entries: the text cannot tell such entries apart, so each of them
// is found wherever the name is.
func (c *Codex) Shared() map[string][]string {
	by := map[string][]string{}
	shown := map[string]string{}
	for _, e := range c.Entries {
		for _, n := range e.Names() {
			f := textnorm.Fold(n)
			if !slices.Contains(by[f], e.ID) {
				by[f] = append(by[f], e.ID)
			}
			if _, ok := shown[f]; !ok {
				shown[f] = n
			}
		}
	}
	out := map[string][]string{}
	for f, ids := range by {
		if len(ids) > 1 {
			out[shown[f]] = ids
		}
	}
	return out
}

// OfKind returns the entries of one kind, in codex order.
func (c *Codex) OfKind(k Kind) []Entry {
	var out []Entry
	for _, e := range c.Entries {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// Import adds in's entries (fresh IDs) except those with a name an entry
// already has, which are listed in skipped as "name (already id)".
func (c *Codex) Import(in *Codex) (added int, skipped []string, err error) {
	for _, e := range in.Entries {
		if owner := c.owning(e.Names()); owner != nil {
			skipped = append(skipped, fmt.Sprintf("%s (already %s)", e.Name, owner.ID))
			continue
		}
		e.ID = ""
		if _, err := c.Add(e); err != nil {
			return added, skipped, err
		}
		added++
	}
	return added, skipped, nil
}

// owning returns the entry that has one of the names (Find's rules).
func (c *Codex) owning(names []string) *Entry {
	for _, n := range names {
		if e, err := c.Find(n); err == nil {
			return e
		}
	}
	return nil
}
