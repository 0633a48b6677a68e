package textnorm

import (
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

func TestFold(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"ascii", "Hello, WORLD 42", "hello, world 42"},
		{"already folded", "уже готово", "уже готово"},
		{"cyrillic", "ЗАПИСКИ из Подполья", "записки из подполья"},
		{"cyrillic extended", "ЇЖАК Ђура Ѐ", "їжак ђура ѐ"},
		{"yo lower", "ёлка", "елка"},
		{"yo upper", "ЁЛКА Ёж", "елка еж"},
		{"yo decomposed", "е\u0308лка Е\u0308ж", "елка еж"},
		{"diaeresis elsewhere kept", "a\u0308 и\u0308", "a\u0308 и\u0308"},
		{"short i kept", "ЙОД йод", "йод йод"},
		{"latin accents", "ÉCOLE Ångström", "école ångström"},
		{"greek sigma", "ΟΔΥΣΣΕΥΣ οδυσσευς", "οδυσσευσ οδυσσευσ"},
		{"kelvin and long s", "\u212A ſ", "k s"},
		{"sharp s unchanged", "Straße STRASSE", "straße strasse"},
		{"typographic apostrophe", "Don’t", "don't"},
		{"invalid utf8 kept", "AB\xffЁ\xd0", "ab\xffе\xd0"},
		{"mixed", "Zвёздочкин iPhoneЫ", "zвездочкин iphoneы"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Fold(tt.in))
			require.Equal(t, tt.want, Fold(tt.want), "Fold must be idempotent")
		})
	}
}

func TestFoldNoAllocWhenFolded(t *testing.T) {
	for _, s := range []string{"already folded text", "уже свернутый текст, ну"} {
		allocs := testing.AllocsPerRun(100, func() { _ = Fold(s) })
		require.Zero(t, allocs, s)
	}
}

// TestFoldRuneProperties checks the whole code space: foldRune is
// idempotent and constant on every unicode.SimpleFold orbit.
func TestFoldRuneProperties(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		f := foldRune(r)
		if foldRune(f) != f {
			require.Failf(t, "not idempotent", "%U -> %U -> %U", r, f, foldRune(f))
		}
		if g := foldRune(unicode.SimpleFold(r)); g != f {
			require.Failf(t, "orbit split", "%U -> %U but SimpleFold(%U) -> %U", r, f, r, g)
		}
	}
}

func TestYoBothWays(t *testing.T) {
	tests := []struct {
		name, query, text string
	}{
		{"query ё, text е", "Звёздочкин", "пришёл Звездочкин"},
		{"query е, text ё", "звездочкин", "пришёл ЗВЁЗДОЧКИН"},
		{"query Ё, text е", "ЁЛКИ", "зелёные елки"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, NewMatcher(tt.query).Match(tt.text))
			require.NotEmpty(t, MatchPhrase(tt.text, tt.query))
			require.Equal(t, Stem(tt.query), Terms(tt.text)[1])
		})
	}
}

func TestNormalizeSpace(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"only space", " \t\n\u00a0 ", ""},
		{"trim and collapse", "  Мой   ДЯДЯ\tсамых \n\n честных  ", "мой дядя самых честных"},
		{"unicode spaces", "a\u00a0\u2003b\u3000c", "a b c"},
		{"punctuation kept", "— Позвольте,  — сказал", "— позвольте, — сказал"},
		{"yo", "Её  ЁЖ", "ее еж"},
		{"decomposed yo after space", "е \u0308", "е \u0308"},
		{"invalid utf8", "A\xff  B", "a\xff b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, NormalizeSpace(tt.in))
		})
	}
}
