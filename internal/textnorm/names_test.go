package textnorm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNameForms: every form of a name matches the name and each other, in
// both directions (the names of issue 13 that Snowball splits), and words
// that are not forms of it do not.
func TestNameForms(t *testing.T) {
	families := [][]string{
		{"Симонов", "Симонова", "Симонову", "Симоновым", "Симонове", "Симоновой", "Симоновы", "Симоновых", "Симоновыми"},
		{"Берендеев", "Берендеева", "Берендееву", "Берендеевым", "Берендееве", "Берендеевой", "Берендеевы"},
		{"Свидригайлов", "Свидригайлова", "Свидригайлову", "Свидригайловым", "Свидригайлове"},
		{"Вахрамеев", "Вахрамеева", "Вахрамееву", "Вахрамеевым"},
		{"Раскольников", "Раскольникова", "Раскольникову", "Раскольниковым", "Раскольникове"},
		{"Ферфичкин", "Ферфичкина", "Ферфичкину", "Ферфичкиным", "Ферфичкиной", "Ферфичкины"},
		{"Сорокин", "Сорокина", "Сорокиной", "Сорокиных"},
		{"Королёв", "Королева", "Королёвым", "КОРОЛЁВУ"},
		{"Достоевский", "Достоевского", "Достоевскому", "Достоевская", "Достоевской", "Достоевские"},
		{"Трубецкий", "Трубецкого", "Трубецкая"},
		{"Аглая", "Аглаи", "Аглаю", "Аглаей", "Аглае"},
		{"Мария", "Марии", "Марию", "Марией"},
		{"Лев", "Льва", "Льву", "Львом", "Льве"},
		{"Павел", "Павла", "Павлу", "Павлом", "Павле"},
		{"Алексей", "Алексея", "Алексею", "Алексеем", "Алексее"},
		{"Лиза", "Лизы", "Лизе", "Лизу", "Лизой"},
		{"Антоныч", "Антоныча", "Антонычу"},
		{"Александровна", "Александровны", "Александровне", "Александровну"},
		{"Collins", "Collins's", "Collinses"},
		{"Darcy", "Darcy's"},
		{"Bennet", "Bennets", "Bennet's"},
	}
	for _, f := range families {
		for _, q := range f {
			term := NewTerm(q)
			for _, w := range f {
				require.True(t, term.Matches(w), "%s should find %s", q, w)
			}
		}
	}
	apart := [][2]string{
		{"Александр", "Александровна"}, {"Александр", "Александровны"}, {"Александровна", "Александр"},
		{"Александр", "Александрович"},
		{"Руссо", "русская"}, {"Руссо", "русский"}, {"Руссо", "русского"},
		{"Лев", "льва"}, {"Лев", "львы"}, // the lion, not the name
		{"Коля", "коли"},                               // the conjunction
		{"Антон", "Антоныч"}, {"Антоныч", "Антонович"}, // a patronymic is another word
		{"Павел", "Павлов"}, {"Павел", "Павлова"},
		{"Симонов", "Симоновка"},
		{"Hill", "hills"}, // another form of a capitalized word must be capitalized
	}
	for _, p := range apart {
		require.False(t, NewTerm(p[0]).Matches(p[1]), "%s must not find %s", p[0], p[1])
	}
}

// TestNameKeysOnlyForNames: common words get no fleeting-vowel keys, so
// lower-case nouns keep Snowball's behaviour.
func TestNameKeysOnlyForNames(t *testing.T) {
	require.Empty(t, filterPrefix(NameKeys("угол"), keyFleeting))
	require.NotEmpty(t, filterPrefix(NameKeys("Угол"), keyFleeting))
	require.Nil(t, NameKeys("1862"))
	require.Nil(t, NameKeys("iPhoneы"))
	require.Nil(t, NameKeys("long"))
}

func filterPrefix(keys []string, p string) []string {
	var out []string
	for _, k := range keys {
		if len(k) >= len(p) && k[:len(p)] == p {
			out = append(out, k)
		}
	}
	return out
}
