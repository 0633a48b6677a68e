package codex

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// capClass is how a word is written.
type capClass uint8

const (
	lowerWord  capClass = iota // starts with a lower-case letter (or a digit)
	titleWord                  // a capital letter, then lower case
	capsWord                   // two or more letters, all capitals (a telegram, a shout)
	singleWord                 // one capital letter (an initial, "I", "A")
)

// tok is one word of an item's text as the name finder sees it.
type tok struct {
	w          string
	start, end int
	class      capClass
	initial    bool // starts a sentence, so its capital letter says nothing
	dot        bool // a full stop follows it directly
}

// titles are the words that stand before a name and make the words after
// them a person's name (folded, without the full stop). Only words written
// with a capital letter count.
var titles = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true, "lady": true, "lord": true, "sir": true,
	"colonel": true, "col": true, "captain": true, "capt": true, "aunt": true, "uncle": true, "madame": true,
	"mme": true, "mademoiselle": true, "mlle": true, "monsieur": true, "general": true, "major": true,
	"lieutenant": true, "madam": true, "reverend": true, "rev": true, "professor": true, "dame": true, "master": true,
	"мосье": true, "мсье": true, "месье": true, "мадам": true, "мадемуазель": true,
}

// abbreviations end in a full stop that does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "col": true, "capt": true, "gen": true,
	"rev": true, "mme": true, "mlle": true, "messrs": true, "lt": true, "jr": true, "sr": true,
	"г": true, "гг": true, "т": true, "д": true, "ул": true, "им": true,
}

// stopNames are words written with a capital letter that are not names:
// pronouns of address, interjections, calendar words.
var stopNames = map[string]bool{
	"i": true, "i'm": true, "i'll": true, "i've": true, "i'd": true, "o": true, "oh": true, "ah": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true,
	"sunday": true, "january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"christmas": true, "easter": true, "god": true, "heaven": true, "lord": true,
	"вы": true, "вас": true, "вам": true, "вами": true, "ваш": true, "ваша": true, "ваше": true, "ваши": true,
	"вашего": true, "вашей": true, "вашему": true, "вашим": true, "вашими": true, "ваших": true, "вашу": true,
	"бог": true, "бога": true, "богу": true, "богом": true, "господи": true, "господь": true,
}

// particles may stand inside a name in lower case: Lady Catherine de Bourgh.
var particles = map[string]bool{"de": true, "van": true, "von": true, "du": true, "da": true, "di": true,
	"del": true, "della": true, "der": true, "le": true, "la": true, "fitz": true}

// openers may stand between a sentence end and its first word.
const openers = "\"“”„«»‘’'([{—–-*_ \t\r\n\u00a0"

// tokens splits an item's text into annotated words.
func tokens(text string) []tok {
	spans := textnorm.Spans(text)
	out := make([]tok, len(spans))
	for i, sp := range spans {
		w := text[sp.Start:sp.End]
		t := tok{w: w, start: sp.Start, end: sp.End, class: classOf(w)}
		t.dot = strings.HasPrefix(text[sp.End:], ".")
		var prev *tok
		if i > 0 {
			prev = &out[i-1]
		}
		t.initial = sentenceStart(text, sp.Start, prev)
		out[i] = t
	}
	return out
}

// classOf classifies how a word is written.
func classOf(w string) capClass {
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return lowerWord
	}
	letters, upper := 0, 0
	for _, c := range w {
		if unicode.IsLetter(c) {
			letters++
			if unicode.IsUpper(c) {
				upper++
			}
		}
	}
	switch {
	case letters == 1:
		return singleWord
	case upper == letters:
		return capsWord
	}
	return titleWord
}

// sentenceStart reports whether the word at start begins a sentence: the
// text before it (past quotes, brackets and dashes) is empty or ends in
// . ! ? … (not the full stop of an abbreviation or an initial), or in a
// colon before an opening quote.
func sentenceStart(text string, start int, prev *tok) bool {
	i := start
	quoted := false
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		if !strings.ContainsRune(openers, r) {
			break
		}
		if strings.ContainsRune("\"“„«‘'", r) {
			quoted = true
		}
		i -= n
	}
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	switch r {
	case '!', '?', '…':
		return true
	case ':':
		return quoted
	case '.':
		return prev == nil || !(prev.class == singleWord || abbreviations[textnorm.Fold(prev.w)])
	}
	return false
}

// isTitle reports whether a word is a title written with a capital letter.
func isTitle(t tok) bool {
	return t.class == titleWord && titles[textnorm.Fold(t.w)]
}

// patronymic matches Russian patronymics in any case, folded (Львович,
// Павловна, Антоныч, Ильичу, Карловичем).
var patronymic = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\p{Cyrillic}{2,}(?:(?:ович|евич|ьич|ыч|ич)(?:а|у|ем|ом|е)?|(?:овн|евн|ичн)(?:а|ы|е|у|ой|ою))$`)
})

// isPatronymic reports whether a folded word looks like a patronymic.
func isPatronymic(norm string) bool { return patronymic().MatchString(norm) }
