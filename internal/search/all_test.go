package search

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAll(t *testing.T) {
	d := parse(exactDoc)
	x := Build(d)
	tests := []struct {
		name, query string
		opt         Options
		want        []string // label: snippet
	}{
		{"every word, any order and form", "человеком злой", Options{}, []string{
			"1.p1: Я **человек** больной... Я **злой** **человек**. Непривлекательный я **человек**.",
		}},
		{"one word in all its items", "раз", Options{}, []string{"1.p5: ЕЩЁ **раз**, ещё **раз**!"}},
		{"a word missing from the book", "человек кот", Options{}, nil},
		{"headings only when asked", "подполье", Options{IncludeHeadings: true}, []string{"1: **Подполье**"}},
		{"limit keeps document order", "человек", Options{Limit: 2}, []string{
			"1.p1: Я **человек** больной... Я злой **человек**. Непривлекательный я **человек**.",
			"1.p2: — Я — **человек**! — крикнул он.",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := x.All(d, tc.query, tc.opt)
			require.NoError(t, err)
			var got []string
			for _, r := range rs {
				require.Equal(t, float64(r.Matches), r.Score)
				got = append(got, r.Pointer.Label+": "+r.Snippet)
			}
			require.Equal(t, tc.want, got)
		})
	}
	_, err := x.All(d, " … ", Options{})
	require.ErrorIs(t, err, ErrEmptyQuery)
}

// TestAllMatchesKeywordCursor checks All against the matcher keyword
// cursors use, on the sample book.
func TestAllMatchesKeywordCursor(t *testing.T) {
	d := parse(string(example(t)))
	x := Build(d)
	for _, q := range []string{"Звёздочкин", "Варя часы", "часы башня ратуша", "профессор Звездочкину", "коза"} {
		rs, err := x.All(d, q, Options{IncludeHeadings: true, Limit: MaxLimit})
		require.NoError(t, err)
		var got []int
		for _, r := range rs {
			got = append(got, r.ID)
		}
		require.Equal(t, bruteMatching(d, []string{q}), got, q)
		require.NotEmpty(t, got, q)
	}
}
