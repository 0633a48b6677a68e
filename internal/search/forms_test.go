package search

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// TestFormsAgreeWithTheMatcher: the index finds exactly the items the
// word-by-word Matcher finds, for names in every form (impure terms
// included: the lion `льва` beside the name `Льва`) and for common words.
func TestFormsAgreeWithTheMatcher(t *testing.T) {
	srcs := map[string][]byte{"names": []byte("# Имена\n\nЛев спал. Льва звали.\n\nМы видели льва в клетке.\n\n" +
		"Симонова нет. Симонов был.\n\nСимоновы пришли к Симоновым.\n\nАглае и Аглаю ждали.\n\nАглая пришла.\n\n" +
		"Александровна и Александр.\n\nРуссо читал русская публика.\n\nПавел, Павла, Павлу, Павлов.\n")}
	if books, ok := booksIfAny(t); ok {
		for name, src := range books {
			srcs[name] = src
		}
	}
	queries := []string{"Лев", "Льва", "льва", "Симонов", "симонова", "Аглая", "Аглаи", "Александр", "Руссо", "Павел",
		"Зверков", "Зверкову", "Лиза", "Трудолюбовым", "Аполлона", "Ферфичкин", "человек", "часы",
		"Elizabeth", "Darcy's", "Bennets", "Lucas", "the", "Лев Аглая"}
	for name, src := range srcs {
		d := markdown.Parse(src)
		x := Build(d)
		for _, q := range queries {
			m := textnorm.NewMatcher(q)
			var want []int
			for _, it := range d.Items() {
				if m.Match(it.Text) {
					want = append(want, it.ID)
				}
			}
			slices.Sort(want)
			require.Equal(t, want, x.ItemsMatching([]string{q}), "%s: %q", name, q)
		}
	}
}

func TestNameFormsInTheIndex(t *testing.T) {
	d := markdown.Parse([]byte("# Имена\n\nЛев спал. Льва звали.\n\nМы видели льва в клетке.\n\n" +
		"Симонова нет.\n\nСимонов был.\n\nАлександровна пришла.\n\nАлександр ушёл.\n\nРуссо.\n\nРусская.\n"))
	x := Build(d)
	texts := func(ids []int) []string {
		var out []string
		for _, id := range ids {
			out = append(out, d.ByID(id).Text)
		}
		return out
	}
	tests := []struct {
		q    string
		want []string
	}{
		{"Лев", []string{"Лев спал. Льва звали."}},
		{"Льва", []string{"Лев спал. Льва звали.", "Мы видели льва в клетке."}}, // its own spelling in any case
		{"льва", []string{"Лев спал. Льва звали.", "Мы видели льва в клетке."}}, // lower case: Snowball as before
		{"Симонов", []string{"Симонова нет.", "Симонов был."}},
		{"Симонова", []string{"Симонова нет.", "Симонов был."}},
		{"Александр", []string{"Александр ушёл."}},
		{"Руссо", []string{"Руссо."}},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, texts(x.ItemsMatching([]string{tt.q})), tt.q)
	}
}
