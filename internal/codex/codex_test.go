package codex

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func sample(t *testing.T) *Codex {
	t.Helper()
	c := &Codex{}
	for _, e := range []Entry{
		{Name: "Звёздочкин", Aliases: []string{"Аркадий Львович", "профессор"}, Description: "астроном", Origin: FromText},
		{Name: "Варя", Aliases: []string{"Варвара", "Синицына"}, Relations: []Relation{{Type: "helps", Target: "звездочкин"}}},
		{Kind: Place, Name: "Верхние Ключи"},
	} {
		_, err := c.Add(e)
		require.NoError(t, err)
	}
	return c
}

func TestAddFindAndIDs(t *testing.T) {
	c := sample(t)
	require.Equal(t, "звездочкин", c.Entries[0].ID, "IDs are folded slugs")
	require.Equal(t, "верхние-ключи", c.Entries[2].ID)
	e, err := c.Add(Entry{Name: "Звездочкин"})
	require.NoError(t, err)
	require.Equal(t, "звездочкин-2", e.ID, "a taken slug gets a number")

	for _, ref := range []string{"варя", "ВАРВАРА", " Синицына ", "варя"} {
		e, err := c.Find(ref)
		require.NoError(t, err, ref)
		require.Equal(t, "Варя", e.Name)
	}
	e.AddAlias("профессор")
	_, err = c.Find("Профессор")
	require.ErrorIs(t, err, ErrAmbiguous, "two entries share the name")
	require.ErrorContains(t, err, "звездочкин, звездочкин-2")
	e, err = c.Find("Звёздочкин")
	require.NoError(t, err, "a name that is an ID")
	require.Equal(t, "звездочкин", e.ID)
	e, err = c.Find("звездочкин-2")
	require.NoError(t, err, "an ID wins over names")
	require.Equal(t, "звездочкин-2", e.ID)
	_, err = c.Find("Кузовков")
	require.ErrorIs(t, err, ErrNotFound)
	_, err = c.Find("Варька")
	require.ErrorContains(t, err, "did you mean Варя (варя)")
	e, err = c.Find("Синицыной")
	require.NoError(t, err, "another form of a name finds its entry")
	require.Equal(t, "варя", e.ID)

	_, err = c.Add(Entry{Name: "  "})
	require.ErrorIs(t, err, ErrInvalid)
	_, err = c.Add(Entry{Name: "x", Kind: "planet"})
	require.ErrorIs(t, err, ErrInvalid)
	e, err = c.Add(Entry{Name: "ratusha", Kind: "glossary", Aliases: []string{"Ratusha", "town hall", "town hall"}})
	require.NoError(t, err)
	require.Equal(t, Term, e.Kind, "kinds have synonyms")
	require.Equal(t, []string{"town hall"}, e.Aliases, "aliases repeating a name are dropped")
	_, err = c.Add(Entry{ID: "варя", Name: "Другая"})
	require.ErrorIs(t, err, ErrInvalid, "IDs are unique")
	require.Equal(t, map[string][]string{"Звёздочкин": {"звездочкин", "звездочкин-2"}, "профессор": {"звездочкин", "звездочкин-2"}}, c.Shared())
}

func TestMergeAndRemove(t *testing.T) {
	c := sample(t)
	_, err := c.Add(Entry{Name: "Аркадий", Facts: []Fact{{Text: "arrives", Evidence: []string{"9:1.1.p6"}}},
		Relations: []Relation{{Type: "met", Target: "варя"}}, Notes: "n1", Confirmed: true})
	require.NoError(t, err)
	require.NoError(t, c.Entries[1].addRelationForTest(Relation{Type: "meets", Target: "аркадий"}))
	e, err := c.Merge("Звёздочкин", "Аркадий")
	require.NoError(t, err)
	require.Equal(t, []string{"Аркадий Львович", "профессор", "Аркадий"}, e.Aliases)
	require.Len(t, e.Facts, 1)
	require.Equal(t, []Relation{{Type: "met", Target: "варя"}}, e.Relations)
	require.Equal(t, "n1", e.Notes)
	require.True(t, e.Confirmed)
	require.Equal(t, 3, c.Len())
	v, _ := c.Find("Варя")
	require.Equal(t, "звездочкин", v.Relations[1].Target, "relations follow the merge")
	_, err = c.Merge("Звёздочкин", "профессор")
	require.ErrorIs(t, err, ErrInvalid, "merging an entry into itself")

	gone, err := c.Remove("Звёздочкин")
	require.NoError(t, err)
	require.Equal(t, "звездочкин", gone.ID)
	v, _ = c.Find("Варя")
	require.Equal(t, "Звёздочкин", v.Relations[1].Target, "a relation to a removed entry keeps its name")
	require.Contains(t, c.Rejected, "Аркадий Львович", "a text entry's names are remembered as rejected")
	require.NoError(t, c.Validate())
	c.Entries = append(c.Entries, c.Entries[0])
	require.ErrorIs(t, c.Validate(), ErrInvalid)
}

func (e *Entry) addRelationForTest(r Relation) error {
	e.Relations = append(e.Relations, r)
	return nil
}

func TestFileRoundTripAndCards(t *testing.T) {
	c := sample(t)
	c.Rejected = []string{"Ерофеич"}
	b, err := Marshal(c)
	require.NoError(t, err)
	require.Contains(t, string(b), `"format": "aite-codex"`)
	back, err := Unmarshal(b)
	require.NoError(t, err)
	require.Equal(t, c, back)

	cards, err := Unmarshal([]byte(`{"characters":{"Orlov":"astronomer","Vera":{"description":"botanist"}},
		"glossary":{"Ratusha":"town hall"},"styleGuide":{"rules":["Dialogue uses em dashes.","No exclamation marks in narration at all, ever, anywhere."]}}`))
	require.NoError(t, err)
	require.Len(t, cards.Entries, 5)
	require.Equal(t, "botanist", cards.Entries[1].Description)
	require.Equal(t, Term, cards.Entries[2].Kind)
	require.Equal(t, "No exclamation marks in narration at…", cards.Entries[4].Name)

	for _, bad := range []string{`[1]`, `{"format":"other","entries":[]}`, `{"format":"aite-codex","version":9,"entries":[]}`,
		`{"nothing":1}`, `{"entries":[{"name":""}]}`, `{"characters":[1]}`} {
		_, err := Unmarshal([]byte(bad))
		require.ErrorIs(t, err, ErrInvalid, bad)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"Mr. Darcy": "mr-darcy", "Фёдор Карлович Штейн": "федор-карлович-штейн", "…": "entry", "  Lady  Catherine  ": "lady-catherine"} {
		require.Equal(t, want, Slug(in), in)
	}
}
