package codex

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/markdown"
)

const legacyAppendix = `# A novel

Ilya Orlov looked at the sky.

## Appendix

### Characters

- **Ilya Orlov**: astronomer, the elder brother
- Vera Orlova — botanist

A note without a name.

#### Kuzma

The caretaker of the observatory.

- Aliases: Кузьма; the caretaker
- Fact (3:1.p1): sweeps the dome.
- Relation: works for → Ilya Orlov
- Notes: rename him?

### Glossary:

- Ratusha: the town hall

### Style guide

- Dialogue uses em dashes.
- No exclamation marks in narration.
`

func TestFromAppendix(t *testing.T) {
	c := FromAppendix(markdown.Parse([]byte(legacyAppendix)).Items())
	require.NotNil(t, c)
	var got []string
	for _, e := range c.Entries {
		got = append(got, string(e.Kind)+":"+e.Name+"="+e.Description)
	}
	require.Equal(t, []string{
		"character:Ilya Orlov=astronomer, the elder brother",
		"character:Vera Orlova=botanist",
		"character:notes=A note without a name.",
		"character:Kuzma=The caretaker of the observatory.",
		"term:Ratusha=the town hall",
		"style:Dialogue uses em dashes.=Dialogue uses em dashes.",
		"style:No exclamation marks in narration.=No exclamation marks in narration.",
	}, got)
	k, err := c.Find("Кузьма")
	require.NoError(t, err)
	require.Equal(t, []string{"Кузьма", "the caretaker"}, k.Aliases)
	require.Equal(t, []Fact{{Text: "sweeps the dome.", Evidence: []string{"3:1.p1"}, Origin: FromImport}}, k.Facts)
	require.Equal(t, []Relation{{Type: "works for", Target: "Ilya Orlov"}}, k.Relations)
	require.Equal(t, "rename him?", k.Notes)
	require.Nil(t, FromAppendix(markdown.Parse([]byte("# Book\n\ntext\n")).Items()))
}

func TestMarkdownRoundTrip(t *testing.T) {
	c := FromAppendix(markdown.Parse([]byte(legacyAppendix)).Items())
	_, err := c.Add(Entry{Kind: Place, Name: "Pulkovo", Description: "the observatory\non a hill"})
	require.NoError(t, err)
	_, err = c.Add(Entry{Kind: Style, Name: "quotes", Description: "Quotes: «ёлочки» only."})
	require.NoError(t, err)
	_, err = c.Add(Entry{Kind: Event, Name: "The storm", Description: "Notes: a description that looks like a field",
		Facts: []Fact{{Text: "the clock runs backwards", Evidence: []string{"12", "15:1.1.p3"}}}})
	require.NoError(t, err)
	md := Markdown(c, MarkdownOptions{Notes: true})
	require.Contains(t, md, "## Characters\n\n- Ilya Orlov: astronomer, the elder brother\n")
	require.Contains(t, md, "### Kuzma\n\n- Aliases: Кузьма; the caretaker\n")
	back := FromAppendix(markdown.Parse([]byte("# Book\n\n" + md)).Items())
	require.NotNil(t, back)
	for i := range c.Entries {
		c.Entries[i].Origin = FromImport
		for j := range c.Entries[i].Facts {
			c.Entries[i].Facts[j].Origin = FromImport
		}
	}
	var want []Entry
	for _, k := range Kinds {
		want = append(want, c.OfKind(k)...) // the appendix groups the entries by kind
	}
	require.Equal(t, want, back.Entries, md)

	private := Markdown(c, MarkdownOptions{Level: 3})
	require.NotContains(t, private, "rename him?", "notes are private unless asked for")
	require.Contains(t, private, "### Characters")
}

func TestMergeKinds(t *testing.T) {
	appendix := &Codex{}
	_, _ = appendix.Add(Entry{Name: "A"})
	_, _ = appendix.Add(Entry{Kind: Term, Name: "T"})
	side := &Codex{}
	_, _ = side.Add(Entry{Name: "B"})
	m := MergeKinds(appendix, side)
	require.Equal(t, []string{"B", "T"}, []string{m.Entries[0].Name, m.Entries[1].Name})
	require.Nil(t, MergeKinds(nil, nil))
	require.Len(t, MergeKinds(nil, side).Entries, 1)
}
