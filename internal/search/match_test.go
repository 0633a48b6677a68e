package search

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// keywordLists are cursor keyword filters: names and their inflections,
// multi-word keywords, words with ё, OR lists, and keywords without words.
var keywordLists = [][]string{
	{"Звёздочкин"},
	{"Звездочкину"},
	{"Варя Синицына"},
	{"часы башня", "козу"},
	{"ещё"},
	{"всё равно"},
	{"человек"},
	{"злой человек", "подполье"},
	{"Elizabeth"},
	{"Mr. Darcy"},
	{"Lady Catherine", "Wickham"},
	{"don't", "won't"},
	{"pride", "prejudice"},
	{"её", "Её"},
	{"", "—", "!"},
	{"Жираф"},
}

func TestItemsMatchingEqualsMatcher(t *testing.T) {
	check := func(t *testing.T, src []byte) {
		d := markdown.Parse(src)
		x := Build(d)
		for _, kws := range keywordLists {
			require.Equal(t, bruteMatching(d, kws), x.ItemsMatching(kws), "%q", kws)
		}
	}
	t.Run("example", func(t *testing.T) { check(t, example(t)) })
	t.Run("small", func(t *testing.T) { check(t, []byte(rankedDoc+exactDoc)) })
	for name, src := range testbook.Books(t) {
		t.Run(name, func(t *testing.T) { check(t, src) })
	}
}

func TestItemsWithAll(t *testing.T) {
	d := parse(rankedDoc)
	x := Build(d)
	ids := func(labels ...string) []int {
		var out []int
		for _, l := range labels {
			it, err := d.Resolve(l)
			require.NoError(t, err)
			out = append(out, it.ID)
		}
		return out
	}
	tests := []struct {
		name  string
		stems []string
		want  []int
	}{
		{"one stem", textnorm.Terms("башню"), ids("1.p1", "1.p3")},
		{"two stems", textnorm.Terms("кот башня"), ids("1.p3")},
		{"repeated stem", textnorm.Terms("кот кота коту"), ids("1.p3", "1.1.p2", "1.1.p3", "1.2.p3")},
		{"unknown stem", []string{"кот", "жираф"}, nil},
		{"unstemmed word is not a stem", []string{"башню"}, nil},
		{"no stems", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, x.ItemsWithAll(tc.stems))
		})
	}
}

func TestEmptyDocument(t *testing.T) {
	for _, src := range []string{"", "\n\n", "---\n"} {
		d := parse(src)
		x := Build(d)
		require.Nil(t, x.ItemsMatching([]string{"кот"}))
		rs, err := x.Ranked(d, "кот", Options{})
		require.NoError(t, err)
		require.Empty(t, rs)
		rs, err = x.Exact(d, "кот", Options{})
		require.NoError(t, err)
		require.Empty(t, rs)
	}
}
