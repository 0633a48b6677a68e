package codex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// Kind is the kind of an entry.
type Kind string

// The kinds of entries.
const (
	Character Kind = "character"
	Place     Kind = "place"
	Object    Kind = "object" // an object or an organisation
	Term      Kind = "term"   // a glossary term
	Event     Kind = "event"  // a timeline event
	Style     Kind = "style"  // a style rule
)

// Kinds lists the kinds in the order the appendix shows them.
var Kinds = []Kind{Character, Place, Object, Term, Event, Style}

// kindNames maps accepted spellings (folded) to kinds.
var kindNames = map[string]Kind{
	"character": Character, "characters": Character, "person": Character, "people": Character, "персонаж": Character,
	"place": Place, "places": Place, "location": Place, "место": Place,
	"object": Object, "objects": Object, "organisation": Object, "organization": Object, "thing": Object, "предмет": Object,
	"term": Term, "terms": Term, "glossary": Term, "термин": Term,
	"event": Event, "events": Event, "timeline": Event, "событие": Event,
	"style": Style, "style rule": Style, "rule": Style, "rules": Style, "правило": Style,
}

// ParseKind reads a kind, accepting plurals and a few synonyms
// ("organisation", "glossary", "timeline", "rule").
func ParseKind(s string) (Kind, error) {
	if k, ok := kindNames[textnorm.Fold(strings.TrimSpace(s))]; ok {
		return k, nil
	}
	return "", fmt.Errorf("%w: unknown entry kind %q (character, place, object, term, event, style)", ErrInvalid, s)
}

// Origin says who made an entry or a fact.
type Origin string

// Origins.
const (
	// FromText: found in the text without a model (names and their forms).
	FromText Origin = "text"
	// FromModel: found or confirmed by the model, with evidence.
	FromModel Origin = "model"
	// FromUser: written or edited by the user (never replaced by a build).
	FromUser Origin = "user"
	// FromImport: imported from an appendix, a sidecar file or JSON.
	FromImport Origin = "import"
)

// Entry is one piece of the book's reference data.
type Entry struct {
	// ID names the entry for good (a slug of its first name); unique in
	// the codex.
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Name is what the entry is called; Aliases are the other names the
	// text uses. Matching finds every inflected form of each (textnorm), so
	// only distinct names are listed, not their case forms.
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	// Description is a short text for the model; Notes are the user's own
	// and never reach a model.
	Description string     `json:"description,omitempty"`
	Notes       string     `json:"notes,omitempty"`
	Relations   []Relation `json:"relations,omitempty"`
	Facts       []Fact     `json:"facts,omitempty"`
	Origin      Origin     `json:"origin,omitempty"`
	// Confirmed is set when a model pass or the user confirmed the entry;
	// an unconfirmed entry is a candidate found in the text.
	Confirmed bool `json:"confirmed,omitempty"`
}

// Relation links an entry to another ("sister of", "lives in").
type Relation struct {
	Type string `json:"type"`
	// Target is the other entry's ID (or a name that is not an entry).
	Target   string `json:"target"`
	Evidence string `json:"evidence,omitempty"` // a pointer
}

// Fact is something true of an entry from a point of the book on, with the
// items that show it. Evidence pointers are resolved by item ID, so a fact
// keeps its place when the book is edited around it.
type Fact struct {
	Text     string   `json:"text"`
	Evidence []string `json:"evidence,omitempty"` // pointers, e.g. 412:1.3.p17
	Origin   Origin   `json:"origin,omitempty"`
}

// Names returns the entry's name and aliases, without repeats.
func (e Entry) Names() []string {
	out := []string{e.Name}
	for _, a := range e.Aliases {
		if !containsFold(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// HasName reports whether s is the entry's ID, name or an alias (case and
// ё/е ignored).
func (e Entry) HasName(s string) bool {
	f := textnorm.Fold(strings.TrimSpace(s))
	return f == textnorm.Fold(e.ID) || containsFold(e.Names(), s)
}

// AddAlias adds names that are not yet names of the entry; it reports
// whether one was added.
func (e *Entry) AddAlias(names ...string) bool {
	added := false
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || containsFold(e.Names(), n) {
			continue
		}
		e.Aliases = append(e.Aliases, n)
		added = true
	}
	return added
}

// RemoveAlias removes a name from the aliases; it reports whether it was
// one.
func (e *Entry) RemoveAlias(name string) bool {
	f := textnorm.Fold(strings.TrimSpace(name))
	i := slices.IndexFunc(e.Aliases, func(a string) bool { return textnorm.Fold(a) == f })
	if i < 0 {
		return false
	}
	e.Aliases = slices.Delete(e.Aliases, i, i+1)
	return true
}

// Clone returns a deep copy.
func (e Entry) Clone() Entry { return e.clone() }

// clone returns a deep copy.
func (e Entry) clone() Entry {
	e.Aliases = slices.Clone(e.Aliases)
	e.Relations = slices.Clone(e.Relations)
	e.Facts = slices.Clone(e.Facts)
	for i := range e.Facts {
		e.Facts[i].Evidence = slices.Clone(e.Facts[i].Evidence)
	}
	return e
}

func containsFold(list []string, s string) bool {
	f := textnorm.Fold(strings.TrimSpace(s))
	return slices.ContainsFunc(list, func(x string) bool { return textnorm.Fold(strings.TrimSpace(x)) == f })
}
