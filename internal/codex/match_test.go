package codex

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMatcher(t *testing.T) {
	m := NewMatcher([]Entry{
		{ID: "darcy", Name: "Mr. Darcy", Aliases: []string{"Darcy"}},
		{ID: "georgiana", Name: "Miss Darcy", Aliases: []string{"Georgiana"}},
		{ID: "long", Name: "Mrs. Long"},
		{ID: "sim", Name: "Симонов"},
		{ID: "stein", Name: "Фёдор Карлович Штейн", Aliases: []string{"Ф. К. Штейн"}},
		{ID: "zv", Name: "Звёздочкин"},
		{ID: "collins", Name: "Collins"},
		{ID: "twin-a", Name: "Twin"},
		{ID: "twin-b", Name: "Twin"},
		{ID: "ratusha", Name: "ратуша"},
	})
	for _, tc := range []struct {
		text string
		want []string // entries in text order, "id=words"
	}{
		{"Mr. Darcy bowed to Miss Darcy.", []string{"darcy=Mr. Darcy", "georgiana=Miss Darcy"}},
		{"Darcy's letter came.", []string{"darcy=Darcy's"}},
		{"Miss Darcy smiled; Darcy did not.", []string{"georgiana=Miss Darcy", "darcy=Darcy"}},
		{"It was a long walk with Mrs. Long.", []string{"long=Mrs. Long"}},
		{"a long walk", nil},
		{"Симонову и Симоновым; симоновы", []string{"sim=Симонову", "sim=Симоновым"}},
		{"ПРОФЕССОРУ ЗВЕЗДОЧКИНУ А Л", []string{"zv=ЗВЕЗДОЧКИНУ"}},
		{"Твой учитель Ф. К. Штейн", []string{"stein=Ф. К. Штейн"}},
		{"Фёдора Карловича Штейна помнят", []string{"stein=Фёдора Карловича Штейна"}},
		{"the Collinses came", []string{"collins=Collinses"}},
		{"Mr., Darcy", []string{"darcy=Darcy"}},
		{"Mr. — Darcy", []string{"darcy=Darcy"}},
		{"Twin came", []string{"twin-a=Twin", "twin-b=Twin"}},
		{"Ратуша и ратуши", []string{"ratusha=Ратуша", "ratusha=ратуши"}},
	} {
		var got []string
		for _, x := range m.Scan(tc.text) {
			require.Equal(t, tc.text[x.Start:x.End], x.Text)
			got = append(got, x.Entry+"="+x.Text)
		}
		require.Equal(t, tc.want, got, tc.text)
	}
	require.Equal(t, []string{"georgiana", "darcy"}, m.Entries("Miss Darcy and Darcy and Mr. Darcy"))
	require.True(t, m.Mentions("Симонова нет", "sim"))
	require.False(t, m.Mentions("Miss Darcy", "darcy"))
	require.Nil(t, NewMatcher(nil).Scan("anything"))
}
