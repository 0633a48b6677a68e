package textnorm

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/russian"
)

// checkFast compares the fast paths with the library on one word (raw:
// the fast paths must also refuse or agree on unfolded input) and
// reports whether a fast path took it.
func checkFast(t *testing.T, word string) bool {
	t.Helper()
	took := false
	if got, ok := stemRussianFast(word); ok {
		took = true
		if want := russian.Stem(word, true); got != want {
			t.Fatalf("russian %q: fast %q, library %q", word, got, want)
		}
	}
	if got, ok := stemEnglishFast(word); ok {
		took = true
		if want := english.Stem(word, true); got != want {
			t.Fatalf("english %q: fast %q, library %q", word, got, want)
		}
	}
	return took
}

// checkStemNorm compares stemNorm (fast path or library) with the library.
func checkStemNorm(t *testing.T, word string) {
	t.Helper()
	norm := Fold(word)
	want := norm
	switch sc := DetectScript(norm); sc {
	case ScriptCyrillic:
		want = russian.Stem(norm, stemStopWords)
	case ScriptLatin:
		want = english.Stem(norm, stemStopWords)
	}
	if got := Stem(word); got != want {
		t.Fatalf("Stem(%q) = %q, library %q", word, got, want)
	}
}

func TestStemFastPathOnReference(t *testing.T) {
	for _, lang := range []string{"russian", "english"} {
		t.Run(lang, func(t *testing.T) {
			voc := loadVocabulary(t, lang)
			took := 0
			for _, w := range voc.words {
				if norm := Fold(w); norm != w && checkFast(t, norm) {
					took++
				}
				if checkFast(t, w) {
					took++
				}
				checkStemNorm(t, w)
			}
			t.Logf("fast path took %d of %d words (raw, and folded if different)", took, len(voc.words))
			if took < len(voc.words) {
				t.Fatalf("the fast path took only %d words", took)
			}
		})
	}
}

func TestStemFastPathOnBooks(t *testing.T) {
	text := bookText(t)
	seen := map[string]bool{}
	for _, sp := range Spans(text) {
		w := text[sp.Start:sp.End]
		if !seen[w] {
			seen[w] = true
			checkFast(t, Fold(w))
			checkStemNorm(t, w)
		}
	}
}

// suffixes of both stemmers, to build words that exercise every rule.
var fastSuffixes = func() (ru, en []string) {
	for _, l := range []ruSuffixes{ruGerund, ruReflexive, ruAdjectival, ruParticiple, ruVerb, ruNoun, ruI, ruDerivation, ruSuperl} {
		for _, s := range l.list {
			var b strings.Builder
			for _, c := range s {
				b.WriteRune('а' + rune(c))
			}
			ru = append(ru, b.String())
		}
	}
	ru = append(ru, "нн", "ь", "а", "я")
	for _, l := range []enSuffixes{enStep0, enStep1a, enStep1b, enUndo1b, enStep2, enStep3, enStep4} {
		en = append(en, l.list...)
	}
	en = append(en, enR1Prefixes...)
	for w := range enSpecial {
		en = append(en, w)
	}
	return ru, en
}

// randomWord glues random letters and suffixes together.
func randomWord(rng *rand.Rand, letters []string, suffixes []string) string {
	var b strings.Builder
	for n := rng.IntN(6); n >= 0; n-- {
		if rng.IntN(3) == 0 {
			b.WriteString(suffixes[rng.IntN(len(suffixes))])
		} else {
			b.WriteString(letters[rng.IntN(len(letters))])
		}
	}
	return b.String()
}

func TestStemFastPathRandom(t *testing.T) {
	ru, en := fastSuffixes()
	ruLetters := strings.Split("а б в г д е ж з и й к л м н о п р с т у ф х ц ч ш щ ъ ы ь э ю я ё", " ")
	enLetters := strings.Split("a b c d e f g h i j k l m n o p q r s t u v w x y z ' 1 Y y y ' é", " ")
	rng := rand.New(rand.NewPCG(1, 2))
	n := 60000
	if testing.Short() {
		n = 10000
	}
	for range n {
		w := randomWord(rng, ruLetters, ru)
		checkFast(t, w)
		checkStemNorm(t, w)
		w = randomWord(rng, enLetters, en)
		checkFast(t, w)
		checkStemNorm(t, w)
	}
	for _, w := range []string{"", "'", "''", "'''", "''''", "'a'", "a'", "'s'", "y", "yy", "yyy", "yyyy", "'yy", "ies", "ied",
		"sses", "eed", "ing", "ingly", "evening", "generate", "arsenal", "communed", "а", "аа", "ааа", "нн", "ннн",
		"ейше", "злейший", "ь", "ьь", "ььь", strings.Repeat("a", maxFastRunes), strings.Repeat("a", maxFastRunes+1),
		strings.Repeat("а", maxFastRunes), strings.Repeat("а", maxFastRunes+1), strings.Repeat("ing", 30)} {
		checkFast(t, w)
		checkStemNorm(t, w)
	}
}

func FuzzStemFastPath(f *testing.F) {
	for _, s := range []string{"running", "'''", "yyying", "generously", "звёздочкиным", "злейшими", "сказавшись", "ннь"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFast(t, s)
		checkStemNorm(t, s)
	})
}
