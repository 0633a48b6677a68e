package textnorm

import (
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/russian"
)

// Script classifies the letters of a word.
type Script uint8

// Scripts reported by DetectScript. Only ScriptCyrillic and ScriptLatin
// words are stemmed.
const (
	ScriptNone     Script = iota // no letters (e.g. digits only)
	ScriptLatin                  // all letters Latin
	ScriptCyrillic               // all letters Cyrillic
	ScriptOther                  // all letters from one other script
	ScriptMixed                  // letters from two or more scripts
)

// String returns the script's name.
func (sc Script) String() string {
	switch sc {
	case ScriptNone:
		return "none"
	case ScriptLatin:
		return "latin"
	case ScriptCyrillic:
		return "cyrillic"
	case ScriptOther:
		return "other"
	}
	return "mixed"
}

// Script bits collected by DetectScript.
const (
	bitLatin = 1 << iota
	bitCyrillic
	bitOther
)

// DetectScript returns the script of word's letters. Digits, marks and
// letters of the Common and Inherited scripts (e.g. ʼ U+02BC) are
// ignored, so "2nd" is Latin and "1990" is ScriptNone.
func DetectScript(word string) Script {
	bits := 0
	for i := 0; i < len(word); {
		r, size := decode(word, i)
		i += size
		bits |= scriptBit(r)
	}
	switch bits {
	case 0:
		return ScriptNone
	case bitLatin:
		return ScriptLatin
	case bitCyrillic:
		return ScriptCyrillic
	case bitOther:
		return ScriptOther
	}
	return ScriptMixed
}

// scriptBit returns the script bit of r, or 0 if r is not a letter of a
// specific script.
func scriptBit(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		if asciiClass[r] == 1 && r > '9' {
			return bitLatin
		}
		return 0
	case (r >= 'А' && r <= 'я') || r == cyrIO || r == cyrCapIO:
		return bitCyrillic
	case !unicode.IsLetter(r):
		return 0
	case unicode.Is(unicode.Latin, r):
		return bitLatin
	case unicode.Is(unicode.Cyrillic, r):
		return bitCyrillic
	case unicode.In(r, unicode.Common, unicode.Inherited):
		return 0
	}
	return bitOther
}

// stemStopWords is passed to the Snowball stemmers. In
// github.com/kljensen/snowball the flag means "stem stop words too";
// with false, stop words ("только", "was", ...) are returned unstemmed.
// The reference algorithm has no stop-word exception, so we stem them.
const stemStopWords = true

// Stem folds word (see Fold) and stems it: with Snowball Russian if its
// letters are Cyrillic, with Snowball English if they are Latin. Any
// other word (no letters, mixed scripts, other scripts) is returned
// folded but unstemmed. word should be a single word as produced by
// Tokenize. The result may share memory with word.
func Stem(word string) string {
	norm := Fold(word)
	return stemNorm(norm, DetectScript(norm))
}

// stemNorm stems an already folded word of the given script. The common
// words take the fast paths (snowfast.go), which give exactly the
// library's output; the others go to the library.
func stemNorm(norm string, script Script) string {
	switch script {
	case ScriptCyrillic:
		if stem, ok := stemRussianFast(norm); ok && stemStopWords {
			return stem
		}
		return russian.Stem(norm, stemStopWords)
	case ScriptLatin:
		if stem, ok := stemEnglishFast(norm); ok && stemStopWords {
			return stem
		}
		return english.Stem(norm, stemStopWords)
	}
	return norm
}

// word is a folded and stemmed word.
type word struct {
	norm, stem string
	script     Script
}

// stemmer folds and stems words, memoising the results by surface form
// within one call (a book repeats its words a lot, and Snowball
// allocates on every call).
type stemmer struct {
	memo map[string]word
}

// word returns the folded and stemmed form of the surface word text.
func (st *stemmer) word(text string) word {
	if w, ok := st.memo[text]; ok {
		return w
	}
	if st.memo == nil {
		st.memo = make(map[string]word)
	}
	norm := Fold(text)
	script := DetectScript(norm)
	w := word{norm, stemNorm(norm, script), script}
	st.memo[text] = w
	return w
}
