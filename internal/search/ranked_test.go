package search

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
)

// rankedDoc is a small Russian and English book with known best answers.
const rankedDoc = `# Часы и фонарь

Звёздочкин пришёл на башню. Часы на башне шли назад, часы били полночь, часы молчали.

Часы стояли на полке.

Кот спал. Кот ел. Кот смотрел на башню.

Фонарь.

Фонарь горел долго, пока в городе кончался вечер, шумела площадь, закрывались лавки и мимо шли люди.

## Звездочкина

Звездочкину было скучно, и он ещё раз завёл часы.

- Кот на фонаре
- Еще один кот

## The lighthouse

The keeper lit the lamp. The lamp burned all night.

A lighthouse keeper keeps the lighthouse.

> Кот в цитате.
`

func TestRankedBest(t *testing.T) {
	d := parse(rankedDoc)
	x := Build(d)
	tests := []struct {
		name, query string
		opt         Options
		want        []string // labels, best first
	}{
		{"term frequency beats one mention", "часы", Options{Limit: 2}, []string{"1.p1", "1.p2"}},
		{"shorter item wins at equal tf", "фонарь", Options{Limit: 3}, []string{"1.p4", "1.1.p2", "1.p5"}},
		{"inflected names share a stem", "Звездочкину", Options{IncludeHeadings: true},
			[]string{"1.1", "1.1.p1", "1.p1"}},
		{"ё in the text, е in the query", "пришел", Options{}, []string{"1.p1"}},
		{"е in the text, ё in the query", "ещё", Options{}, []string{"1.1.p3", "1.1.p1"}},
		{"English stemming", "lighthouses", Options{}, []string{"1.2.p2"}},
		{"headings skipped by default", "Звёздочкина", Options{}, []string{"1.1.p1", "1.p1"}},
		{"kinds", "кот", Options{Kinds: []document.Kind{document.ListItem}}, []string{"1.1.p2", "1.1.p3"}},
		{"kinds and headings together", "Звездочкин", Options{Kinds: []document.Kind{document.Heading}}, []string{}},
		{"kinds with headings", "Звездочкин", Options{Kinds: []document.Kind{document.Heading}, IncludeHeadings: true}, []string{"1.1"}},
		{"within a section", "кот", Options{Within: "1.1"}, []string{"1.1.p2", "1.1.p3"}},
		{"within by id:label", "lamp", Options{Within: "11:1.2"}, []string{"1.2.p1"}},
		{"unknown word", "жираф", Options{}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := x.Ranked(d, tc.query, tc.opt)
			require.NoError(t, err)
			require.Equal(t, tc.want, labels(rs))
		})
	}
}

func TestRankedPrinciples(t *testing.T) {
	tests := []struct {
		name, doc, query string
		want             []string
	}{
		{"term frequency", "кот спит дома у окна\n\nкот кот дома у окна\n", "кот", []string{"p2", "p1"}},
		{"rarity", "кот спит\n\nкот ест\n\nмышь спит\n\nкот пьёт\n", "кот мышь", []string{"p3", "p1", "p2", "p4"}},
		{"length", "фонарь горит ярко над старой площадью\n\nфонарь горит\n", "фонарь", []string{"p2", "p1"}},
		{"both terms beat one", "мышь ест\n\nкот ест\n\nкот и мышь\n\nсыр\n", "кот мышь", []string{"p3", "p1", "p2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := parse(tc.doc)
			rs, err := Build(d).Ranked(d, tc.query, Options{})
			require.NoError(t, err)
			require.Equal(t, tc.want, labels(rs))
		})
	}
}

func TestRankedMatchesFormula(t *testing.T) {
	srcs := map[string]string{"small": rankedDoc, "example": string(example(t))}
	if books, ok := booksIfAny(t); ok {
		for name, src := range books {
			srcs[name] = string(src)
		}
	}
	for name, src := range srcs {
		d := parse(src)
		x, b := Build(d), newBrute(d)
		for _, q := range []string{"часы", "Звёздочкин часы башня", "злой больной человек", "proud Darcy Elizabeth", "и"} {
			t.Run(name+"/"+q, func(t *testing.T) {
				rs, err := x.Ranked(d, q, Options{Limit: MaxLimit, IncludeHeadings: true})
				require.NoError(t, err)
				requireSameRanking(t, b.rank(q), rs, MaxLimit)
			})
		}
	}
}

func TestRankedResultFields(t *testing.T) {
	d := parse(rankedDoc)
	rs, err := Build(d).Ranked(d, "часы башня", Options{Limit: 1})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	it := d.ByID(rs[0].ID)
	require.Equal(t, it.Pointer(), rs[0].Pointer)
	require.Equal(t, it.Index(), rs[0].Index)
	require.Equal(t, document.Paragraph, rs[0].Kind)
	require.Equal(t, 5, rs[0].Matches) // башню, башне, часы ×3
	require.Equal(t, "Звёздочкин пришёл на **башню**. **Часы** на **башне** шли назад, **часы** били полночь, **часы** молчали.",
		rs[0].Snippet)
}

func TestRankedTiesInDocumentOrder(t *testing.T) {
	d := parse("# T\n\nкот\n\nпёс\n\nкот\n\nпёс\n\nкот\n")
	x := Build(d)
	_, err := d.InsertBefore("1.p1", "кот")
	require.NoError(t, err) // a new ID (7) that stands first
	x.Update(d, 7)
	rs, err := x.Ranked(d, "кот", Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"1.p1", "1.p2", "1.p4", "1.p6"}, labels(rs))
	require.Equal(t, 7, rs[0].ID)
	rs, err = x.Ranked(d, "кот", Options{Limit: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"1.p1", "1.p2"}, labels(rs))
}

func TestOptionErrors(t *testing.T) {
	d := parse(rankedDoc)
	x := Build(d)
	tests := []struct {
		name    string
		query   string
		opt     Options
		is      error
		message string
	}{
		{"limit too big", "кот", Options{Limit: 1001}, ErrRange, "between 1 and 1000 (got 1001)"},
		{"negative limit", "кот", Options{Limit: -1}, ErrRange, "between 1 and 1000"},
		{"unknown kind", "кот", Options{Kinds: []document.Kind{"Chapter"}}, ErrRange, `"Chapter"`},
		{"empty query", "", Options{}, ErrEmptyQuery, "no words"},
		{"punctuation only", " — !? … ", Options{}, ErrEmptyQuery, "no words"},
		{"within a paragraph", "кот", Options{Within: "1.p1"}, ErrNotHeading, "is a Paragraph"},
		{"within nothing", "кот", Options{Within: "9.9"}, document.ErrNotFound, "9.9"},
		{"within garbage", "кот", Options{Within: "??"}, nil, "not a pointer"},
	}
	for _, tc := range tests {
		for _, search := range []func(*document.Document, string, Options) ([]Result, error){x.Ranked, x.Exact} {
			_, err := search(d, tc.query, tc.opt)
			require.Error(t, err, tc.name)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is, tc.name)
			}
			require.Contains(t, err.Error(), tc.message, tc.name)
		}
	}
	for _, limit := range []int{1, MaxLimit} {
		_, err := x.Ranked(d, "кот", Options{Limit: limit})
		require.NoError(t, err)
	}
	rs, err := x.Ranked(d, "кот", Options{})
	require.NoError(t, err)
	require.Len(t, rs, 4)
}

func TestRankedStaleIndex(t *testing.T) {
	d := parse(string(example(t)))
	x := Build(d)
	v := x.Version()
	_, err := d.ReplaceText("1.p1", "Звёздочкин, Звёздочкин и снова Звёздочкин.")
	require.NoError(t, err)
	last := d.Items()[d.Len()-1]
	_, err = d.InsertAfter(last.Pointer().String(), "Часы Звёздочкина пошли вперёд.")
	require.NoError(t, err)
	require.NotEqual(t, v, d.Version())
	rs, err := x.Ranked(d, "Звёздочкин часы", Options{Limit: 50, IncludeHeadings: true})
	require.NoError(t, err)
	requireSameRanking(t, bruteBM25(d, "Звёздочкин часы"), rs, 50)
	require.Equal(t, "Часы Звёздочкина пошли вперёд.", d.ByID(rs[0].ID).Text)
	require.Equal(t, d.Version(), x.Version())
	require.Equal(t, dump(Build(d)), dump(x))
}
