package textnorm

import (
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

func TestStemEquivalences(t *testing.T) {
	tests := []struct {
		name  string
		words []string
	}{
		{"surname with ё", []string{"Звёздочкин", "Звездочкина", "Звездочкину", "ЗВЁЗДОЧКИНЫМ"}},
		{"english plural", []string{"Professor", "professors", "PROFESSOR’S"}},
		{"english verb", []string{"run", "running", "runs"}},
		{"russian verb", []string{"сказал", "сказала", "сказали"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Stem(tt.words[0])
			for _, w := range tt.words[1:] {
				require.Equal(t, want, Stem(w), w)
			}
		})
	}
}

func TestStem(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"running", "run"},
		{"Professors", "professor"},
		{"ЗВЁЗДОЧКИНЫМ", "звездочкин"},
		{"Zвёздочкин", "zвездочкин"}, // mixed: only folded
		{"iPhoneы", "iphoneы"},
		{"1862", "1862"},
		{"ΛΌΓΟΙ", "λόγοι"},  // other script: only folded
		{"только", "тольк"}, // stop words are stemmed
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			require.Equal(t, tt.want, Stem(tt.in))
		})
	}
}

func TestDetectScript(t *testing.T) {
	tests := []struct {
		in   string
		want Script
	}{
		{"", ScriptNone},
		{"1990", ScriptNone},
		{"hello", ScriptLatin},
		{"2nd", ScriptLatin},
		{"café", ScriptLatin},
		{"ёжик", ScriptCyrillic},
		{"Ђура", ScriptCyrillic},
		{"за\u0301мок", ScriptCyrillic},
		{"doesn\u02bct", ScriptLatin}, // modifier apostrophe is Common
		{"λόγος", ScriptOther},
		{"Zвёздочкин", ScriptMixed},
		{"iPhoneы", ScriptMixed},
		{"δx", ScriptMixed},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			require.Equal(t, tt.want, DetectScript(tt.in))
		})
	}
}

func TestScriptString(t *testing.T) {
	names := map[Script]string{
		ScriptNone: "none", ScriptLatin: "latin", ScriptCyrillic: "cyrillic",
		ScriptOther: "other", ScriptMixed: "mixed",
	}
	for sc, name := range names {
		require.Equal(t, name, sc.String())
	}
}

// TestGeneralPunctuationHasNoWordRunes guards the fast path in
// isWordRune.
func TestGeneralPunctuationHasNoWordRunes(t *testing.T) {
	for r := rune(0x2000); r <= 0x206F; r++ {
		require.False(t, unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r), "%U", r)
	}
}
