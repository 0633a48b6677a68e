package codex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

func sampleBook(t *testing.T) *document.Document {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	return markdown.Parse(src)
}

func TestCandidatesOfTheSampleBook(t *testing.T) {
	cands := FindCandidates(sampleBook(t).Items())
	byName := map[string]Candidate{}
	for _, c := range cands {
		byName[c.Entry.Name] = c
	}
	for name, want := range map[string]struct {
		kind    Kind
		aliases []string
	}{
		"Звёздочкин":           {Character, []string{"Аркадий Львович"}},                                // apposition
		"Варя":                 {Character, []string{"Варина", "Варвара", "Варя Синицына", "Синицына"}}, // possessive, pet form, first name + surname
		"Фёдор Карлович Штейн": {Character, []string{"Фёдор Карлович", "Ф. К. Штейн", "Штейн"}},         // initials, surname
		"Кузовков":             {Character, nil},
		"Тверь":                {Place, nil},                          // "в Тверь"
		"Верхние Ключи":        {Place, nil},                          // "в городке Верхние Ключи", "в Верхние Ключи"
		"Нижней":               {Place, nil},                          // "с Нижней улицы"
		"Ерофей":               {Character, []string{"Ерофей Ильич"}}, // only "Ерофею Ильичу" in the text
	} {
		c, ok := byName[name]
		require.True(t, ok, "%s is a candidate (have %v)", name, names(cands))
		require.Equal(t, want.kind, c.Entry.Kind, name)
		require.Equal(t, want.aliases, c.Entry.Aliases, name)
		require.Equal(t, FromText, c.Entry.Origin)
		require.NotEmpty(t, c.First)
	}
	require.Equal(t, "Варя", cands[0].Entry.Name, "most used first")
	require.NotContains(t, names(cands), "Варина", "a possessive joins the name it is made from")
	for _, c := range cands {
		require.NotContains(t, []string{"Глава", "Это", "Ну", "ПРОФЕССОР", "Вы"}, c.Entry.Name, "sentence starts and capitals are not names")
	}
}

func TestPatronymNominative(t *testing.T) {
	for in, want := range map[string]string{"Ильичу": "Ильич", "Карловичем": "Карлович", "Львовича": "Львович",
		"Павловной": "Павловна", "Павловну": "Павловна", "Павловна": "Павловна", "Ильич": "Ильич", "Варя": "Варя", "Штейну": "Штейну",
		"Олимпию": "Олимпия", "Франции": "Франция", "Волковом": "Волковом", "Гудзоном": "Гудзон", "Вагенгеймом": "Вагенгейм",
		"Петербурге": "Петербурге", "Риге": "Риге", "Некрасова": "Некрасова", "Содом": "Содом", "Тимофеем": "Тимофеем"} {
		require.Equal(t, want, patronymNominative(in), in)
	}
}

func names(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Entry.Name)
	}
	return out
}

func TestBuildKeepsWhatTheUserMade(t *testing.T) {
	items := sampleBook(t).Items()
	c, rep := Build(items, nil)
	require.Equal(t, len(rep.Candidates), rep.Added)
	require.Equal(t, 0, rep.Kept)

	zv, err := c.Find("Звёздочкин")
	require.NoError(t, err)
	zv.Description = "a professor of astronomy"
	_, err = c.Remove("Тверь") // the user does not want it
	require.NoError(t, err)
	_, err = c.Add(Entry{Name: "Ерофеич", Aliases: []string{"Ерофей Ильич"}, Origin: FromUser, Description: "the clockmaker"})
	require.NoError(t, err)

	again, rep := Build(items, c)
	require.Equal(t, []string{"Тверь"}, rep.Skipped, "a removed candidate stays removed")
	require.Equal(t, 1, rep.Kept, "the user's entry is kept")
	u, err := again.Find("Ерофеич")
	require.NoError(t, err)
	require.Equal(t, FromUser, u.Origin)
	require.Equal(t, "the clockmaker", u.Description)
	z, err := again.Find("Звёздочкин")
	require.NoError(t, err)
	require.Equal(t, zv.ID, z.ID, "a text entry keeps its ID")
	require.Equal(t, "a professor of astronomy", z.Description, "and what was written about it")
	require.Contains(t, rep.Suggestions[u.ID], "Ерофей", "the text's other names for a user entry are suggestions")
	_, err = again.Find("Тверь")
	require.ErrorIs(t, err, ErrNotFound)
}

func TestFactsAsOf(t *testing.T) {
	d := sampleBook(t)
	e := Entry{Name: "x", Facts: []Fact{
		{Text: "timeless"},
		{Text: "early", Evidence: []string{"9:1.1.p6"}},
		{Text: "late", Evidence: []string{"100", "20"}},
		{Text: "gone", Evidence: []string{"99999"}},
	}}
	texts := func(fs []Fact) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Text)
		}
		return out
	}
	require.Equal(t, []string{"timeless"}, texts(e.FactsAsOf(d, 0)))
	require.Equal(t, []string{"timeless", "early"}, texts(e.FactsAsOf(d, d.ByID(9).Index())), "at the evidence item itself")
	require.Equal(t, []string{"timeless", "early", "late"}, texts(e.FactsAsOf(d, d.ByID(20).Index())), "the earliest evidence counts")
	_, ok := FactIndex(d, e.Facts[3])
	require.False(t, ok)
}

// TestPossessivesAndPlaceNouns: a possessive adjective joins the name it is
// made from only when nothing says it is a surname, and a name beside a
// place noun is a place.
func TestPossessivesAndPlaceNouns(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		kinds      map[string]Kind     // entry → kind
		aliases    map[string][]string // entry → aliases
		absent     []string
	}{
		{"possessive", "Пришла Маша. Машина мама ждала, и вот опять пришла Маша, а Машину сумку забыли. Вернулась Маша, и Машина кошка с ней. Уснула Маша.",
			map[string]Kind{"Маша": Character}, map[string][]string{"Маша": {"Машина"}}, []string{"Машина", "Машину"}},
		{"a surname in -ина stays apart", "Пришла Маша. Ждала Анна Машина. Ушла Маша, а Машина осталась. Вернулась Маша. Уехала и Машина.",
			nil, map[string][]string{"Маша": nil}, nil},
		{"street and town", "Там жил Петя, на Садовой улице. Дома Садовой улицы любил Петя. Уехали они в город Озёрск, и в городе Озёрске учился Петя.",
			map[string]Kind{"Садовой": Place, "Озёрск": Place, "Петя": Character}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := markdown.Parse([]byte(tc.text + "\n")).Items()
			byName := map[string]Candidate{}
			for _, c := range FindCandidates(items) {
				byName[c.Entry.Name] = c
			}
			for n, k := range tc.kinds {
				require.Contains(t, byName, n, "have %v", byName)
				require.Equal(t, k, byName[n].Entry.Kind, n)
			}
			for n, a := range tc.aliases {
				require.Contains(t, byName, n)
				require.Equal(t, a, byName[n].Entry.Aliases, n)
			}
			for _, n := range tc.absent {
				require.NotContains(t, byName, n)
			}
		})
	}
}

// TestPetForms: a well-known short form joins the one full first name the
// book uses, not a name a rank title owns, and not when it could stand
// for two names the book uses.
func TestPetForms(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		aliases    map[string][]string // entry → aliases
		apart      []string            // entries of their own
	}{
		{"lizzy is elizabeth", "Then Elizabeth smiled. Later Elizabeth left, and Lizzy came back. So Elizabeth said: no, Lizzy.",
			map[string][]string{"Elizabeth": {"Lizzy"}}, nil},
		{"kitty is not lady catherine", "Then Lady Catherine spoke, and Kitty coughed. Then Lady Catherine frowned; Kitty laughed. Then Catherine ran.",
			nil, []string{"Kitty", "Lady Catherine"}},
		{"паша with two full names", "Пришёл Павел. Пришла Прасковья. Ушёл Паша. Вернулся Паша. Ушёл Павел. Ушла Прасковья.",
			nil, []string{"Паша", "Павел", "Прасковья"}},
		{"паша with one", "Пришёл Павел. Ушёл Паша. Вернулся Паша. Ушёл Павел. Спит Павел.",
			map[string][]string{"Павел": {"Паша"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			byName := map[string]Candidate{}
			for _, c := range FindCandidates(markdown.Parse([]byte(tc.text + "\n")).Items()) {
				byName[c.Entry.Name] = c
			}
			for n, a := range tc.aliases {
				require.Contains(t, byName, n, "have %v", byName)
				require.Equal(t, a, byName[n].Entry.Aliases, n)
			}
			for _, n := range tc.apart {
				require.Contains(t, byName, n, "have %v", byName)
			}
		})
	}
}
