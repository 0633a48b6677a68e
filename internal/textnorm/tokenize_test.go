package textnorm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// texts returns the surface forms of toks.
func texts(toks []Token) []string {
	var out []string
	for _, tk := range toks {
		out = append(out, tk.Text)
	}
	return out
}

func TestTokenizeWords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only space and punctuation", " \t— «…», !? ", nil},
		{"whitespace runs", "one  \t two\n\n\nthree", []string{"one", "two", "three"}},
		{"dialogue with em dashes", "— Позвольте, — сказал Звёздочкин, — но…",
			[]string{"Позвольте", "сказал", "Звёздочкин", "но"}},
		{"en dash and hyphen-minus", "1812–1815 гг. - война", []string{"1812", "1815", "гг", "война"}},
		{"hyphen splits", "кто-то well-known", []string{"кто", "то", "well", "known"}},
		{"quotes", `«Ёлки» „палки“ "sticks" 'twigs'`, []string{"Ёлки", "палки", "sticks", "twigs"}},
		{"apostrophe inside", "don't can’t д'Артаньян rock'n'roll",
			[]string{"don't", "can’t", "д'Артаньян", "rock'n'roll"}},
		{"apostrophe at edges", "students' 'tis '' o'", []string{"students", "tis", "o"}},
		{"apostrophe after digit", "the 1990's", []string{"the", "1990", "s"}},
		{"digits", "в 1862 году, 3.14 и 2nd", []string{"в", "1862", "году", "3", "14", "и", "2nd"}},
		{"mixed script", "Zвёздочкин купил iPhoneы", []string{"Zвёздочкин", "купил", "iPhoneы"}},
		{"combining marks", "за\u0301мок e\u0301te\u0301", []string{"за\u0301мок", "e\u0301te\u0301"}},
		{"other scripts", "λόγος 東京 δ", []string{"λόγος", "東京", "δ"}},
		{"symbols and underscore", "a_b c+d e@f #g", []string{"a", "b", "c", "d", "e", "f", "g"}},
		{"invalid utf8", "ab\xffвд\xd0\x80\xe2\x82cd\xc0", []string{"ab", "вд\xd0\x80", "cd"}},
		{"only invalid", "\xff\xfe\xc3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks := Tokenize(tt.in)
			require.Equal(t, tt.want, texts(toks))
			checkSpans(t, tt.in, toks)
		})
	}
}

// checkSpans checks the offsets of toks against s.
func checkSpans(t *testing.T, s string, toks []Token) {
	t.Helper()
	prev := 0
	for _, tk := range toks {
		require.LessOrEqual(t, prev, tk.Start)
		require.Less(t, tk.Start, tk.End)
		require.LessOrEqual(t, tk.End, len(s))
		require.Equal(t, s[tk.Start:tk.End], tk.Text)
		prev = tk.End
	}
}

func TestTokenizeFields(t *testing.T) {
	s := "— ЗВЁЗДОЧКИН, iPhoneы и 42 Professors"
	want := []Token{
		{Text: "ЗВЁЗДОЧКИН", Norm: "звездочкин", Stem: "звездочкин", Script: ScriptCyrillic},
		{Text: "iPhoneы", Norm: "iphoneы", Stem: "iphoneы", Script: ScriptMixed},
		{Text: "и", Norm: "и", Stem: "и", Script: ScriptCyrillic},
		{Text: "42", Norm: "42", Stem: "42", Script: ScriptNone},
		{Text: "Professors", Norm: "professors", Stem: "professor", Script: ScriptLatin},
	}
	toks := Tokenize(s)
	require.Len(t, toks, len(want))
	for i, tk := range toks {
		t.Run(tk.Text, func(t *testing.T) {
			w := want[i]
			w.Start, w.End = tk.Start, tk.End
			require.Equal(t, w, tk)
			require.Equal(t, tk.Text, s[tk.Start:tk.End])
		})
	}
	require.Equal(t, "— ", s[:toks[0].Start])
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", []string{}},
		{"russian forms", "Звёздочкину, Звездочкина и ЗВЁЗДОЧКИНЫМ",
			[]string{"звездочкин", "звездочкин", "и", "звездочкин"}},
		{"english", "The professors were running", []string{"the", "professor", "were", "run"}},
		{"stop words are stemmed", "только because", []string{"тольк", "becaus"}},
		{"apostrophe", "Don’t don't", []string{"don't", "don't"}},
		{"mixed and digits", "Zвёздочкины 2024", []string{"zвездочкины", "2024"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Terms(tt.in))
		})
	}
}

func TestSpans(t *testing.T) {
	s := "«Ну-с», — сказал он."
	var got []string
	for _, sp := range Spans(s) {
		got = append(got, s[sp.Start:sp.End])
	}
	require.Equal(t, []string{"Ну", "с", "сказал", "он"}, got)
	require.Empty(t, Spans(""))
}
