package textnorm

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snowball gives different stems to some forms of one Russian name:
// `Симонов` → симон but `Симонова`, `Симонову`, `Симоновым` → симонов;
// `Аглая` → агл but `Аглаи`, `Аглаю` → агла; `Алексей` → алекс but
// `Алексея` → алексе; `Лев` → лев but `Льва` → льв. NameKeys adds what the
// stem misses: the keys of the inflection paradigms a word may be a form
// of. Two words are forms of one another when their stems are equal or
// they share a key (Term.Matches). Each key names one paradigm and its base
// (what every form of it starts with), so a key never joins two words the
// paradigm does not: `Александр` and `Александровна` share none, and
// neither do `Руссо` and `русская`. See STEMMING.md for the grammar and
// how it is measured.
//
// The paradigms:
//
//   - s: surnames in -ов/-ев/-ёв/-ин/-ын with their feminine and plural
//     forms (base + "", а, у, ым, е, ой, ою, ы, ых, ыми): the key's base
//     ends in the suffix.
//   - y: nouns in -ая/-яя/-ея/-ия/-уя after a vowel (`Аглая`, `Мария`):
//     base + я, и, ю, ей, ею, е.
//   - j: nouns in vowel + й (`Алексей`, `Андрей`, `музей`): base + й, я, ю,
//     ем, е, и, ев, ям, ями, ях.
//   - f: masculine names with a fleeting vowel (`Лев`/`Льва`,
//     `Павел`/`Павла`): the nominative X+е/о+C gives X+C and X+ь+C, an
//     oblique form (base + а, у, ом, е, ы) its base; not the genitive plural in -ов, which is a surname (`Павлов`). Only for words
//     written with a capital letter, so the lion (`льва`) stays apart from
//     the name, and common nouns keep Snowball's behaviour.
//   - e: English names written with a capital letter, for the plural of a
//     name in -s that Snowball stems apart (`Collins`, `Collinses`,
//     `Collins's` → collins; `Lucas`, `Lucases`): the word without a
//     possessive `'s` or `'`, and without the -es of a plural in -ses.

// Key prefixes, one per paradigm.
const (
	keySurname  = "s:"
	keyYa       = "y:"
	keyJ        = "j:"
	keyFleeting = "f:"
	keyEnglish  = "e:"
)

var (
	surnameSuffixes  = []string{"ов", "ев", "ин", "ын"}
	surnameEndings   = []string{"", "а", "у", "ым", "е", "ой", "ою", "ы", "ых", "ыми"}
	yaEndings        = []string{"я", "и", "ю", "ей", "ею", "е"}
	jEndings         = []string{"й", "я", "ю", "ем", "е", "и", "ев", "ям", "ями", "ях"}
	fleetingEndings  = []string{"а", "у", "ом", "е", "ы"}
	russianVowels    = "аеиоуыэюя"
	russianConsonant = "бвгджзйклмнпрстфхцчшщ"
)

// NameKeys returns the name-paradigm keys of a surface word (see the
// paradigms above), or nil: for words that are not all Cyrillic and for
// words no paradigm fits. The keys are folded (lower case, ё → е).
func NameKeys(word string) []string {
	norm := Fold(word)
	switch DetectScript(norm) {
	case ScriptLatin:
		return englishKeys(word, norm)
	case ScriptCyrillic:
	default:
		return nil
	}
	var keys []string
	add := func(k string) {
		for _, have := range keys {
			if have == k {
				return
			}
		}
		keys = append(keys, k)
	}
	for _, e := range surnameEndings {
		if base, ok := strings.CutSuffix(norm, e); ok && runeLen(base) >= 5 && hasAnySuffix(base, surnameSuffixes) {
			add(keySurname + base)
		}
	}
	for _, e := range yaEndings {
		if base, ok := strings.CutSuffix(norm, e); ok && runeLen(base) >= 3 && endsIn(base, russianVowels) {
			add(keyYa + base)
		}
	}
	for _, e := range jEndings {
		if base, ok := strings.CutSuffix(norm, e); ok && runeLen(base) >= 3 && endsIn(base, russianVowels) {
			add(keyJ + base)
		}
	}
	if capitalized(word) {
		for _, k := range fleetingKeys(norm) {
			add(keyFleeting + k)
		}
	}
	return keys
}

// englishKeys returns the e: keys of a capitalized Latin word.
func englishKeys(word, norm string) []string {
	if !capitalized(word) {
		return nil
	}
	base := strings.TrimSuffix(strings.TrimSuffix(norm, "'s"), "'")
	keys := []string{keyEnglish + base}
	if p, ok := strings.CutSuffix(base, "ses"); ok && len(p) >= 2 {
		keys = append(keys, keyEnglish+p+"s")
	}
	return keys
}

// fleetingKeys returns the bases of the fleeting-vowel paradigm a folded
// word may belong to.
func fleetingKeys(norm string) []string {
	var out []string
	for _, e := range fleetingEndings {
		if base, ok := strings.CutSuffix(norm, e); ok && runeLen(base) >= 2 && twoConsonants(base) {
			out = append(out, base)
		}
	}
	r := []rune(norm)
	n := len(r)
	if n >= 3 && isConsonant(r[n-1]) && (r[n-2] == 'е' || r[n-2] == 'о') && isConsonant(r[n-3]) {
		x := string(r[:n-2])
		out = append(out, x+string(r[n-1]), x+"ь"+string(r[n-1]))
	}
	return out
}

// twoConsonants reports whether s ends in two consonants (or ь and a
// consonant), as an oblique base with its fleeting vowel dropped does.
func twoConsonants(s string) bool {
	r := []rune(s)
	n := len(r)
	return n >= 2 && isConsonant(r[n-1]) && (isConsonant(r[n-2]) || r[n-2] == 'ь')
}

func isConsonant(r rune) bool { return strings.ContainsRune(russianConsonant, r) }

func endsIn(s, letters string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(letters, r)
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// capitalized reports whether the word starts with an upper-case letter.
func capitalized(word string) bool {
	r, _ := utf8.DecodeRuneInString(word)
	return unicode.IsUpper(r)
}

// keyBase returns the base of a key (what its forms start with, for the
// paradigms other than a fleeting nominative).
func keyBase(k string) string { return k[2:] }

// Term is one word of a query as matching sees it: its Snowball stem, its
// name-paradigm keys and whether it was written with a capital letter.
// A query word written in lower case matches its forms in any case. One
// written with a capital letter matches its own spelling in any case (as
// folded: `DON'T` finds `don’t`, `Ёлки` finds `елки`) but its other forms
// only when they are written with a capital letter too: `Коля` finds
// `Коли` but not the conjunction `коли`, `Лев` finds `Льва` but not the
// lion's `льва`.
type Term struct {
	Stem    string
	Keys    []string
	Capital bool
	Norms   []string // the folded spellings the term was written in
}

// NewTerm analyses one surface word.
func NewTerm(word string) Term {
	norm := Fold(word)
	return Term{Stem: stemNorm(norm, DetectScript(norm)), Keys: NameKeys(word), Capital: capitalized(word),
		Norms: []string{norm}}
}

// QueryTerms returns the terms of the words of s in order, one per stem:
// words with equal stems are one term with the keys of both (`Кот` and
// `кота`), in any case if either is in lower case.
func QueryTerms(s string) []Term {
	var out []Term
	for _, sp := range Spans(s) {
		t := NewTerm(s[sp.Start:sp.End])
		merged := false
		for i := range out {
			if out[i].Stem == t.Stem {
				out[i].Keys = unionKeys(out[i].Keys, t.Keys)
				out[i].Norms = unionKeys(out[i].Norms, t.Norms)
				out[i].Capital = out[i].Capital && t.Capital
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, t)
		}
	}
	return out
}

func unionKeys(a, b []string) []string {
	for _, k := range b {
		if !slices.Contains(a, k) {
			a = append(a, k)
		}
	}
	return a
}

// Matches reports whether a surface word is a form of the term: the same
// stem, or a shared name-paradigm key, and for a term with a capital letter
// a capital letter too unless it is the term's own spelling.
func (t Term) Matches(word string) bool {
	norm := Fold(word)
	if !t.caseAllows(word, norm) {
		return false
	}
	return t.matchesAnalysed(stemNorm(norm, DetectScript(norm)), NameKeys(word))
}

// caseAllows applies the capital-letter rule to a word and its folded form.
func (t Term) caseAllows(word, norm string) bool {
	return !t.Capital || capitalized(word) || slices.Contains(t.Norms, norm)
}

// MatchText reports whether some word of text is a form of the term.
func (t Term) MatchText(text string) bool {
	for i := 0; ; {
		start, end, ok := nextWord(text, i)
		if !ok {
			return false
		}
		if t.Matches(text[start:end]) {
			return true
		}
		i = end
	}
}

func (t Term) matchesAnalysed(stem string, keys []string) bool {
	if stem == t.Stem {
		return true
	}
	for _, k := range keys {
		for _, q := range t.Keys {
			if k == q {
				return true
			}
		}
	}
	return false
}

// Prefixes returns strings such that every word matching the term, folded,
// starts with one of them: the stem, the key bases and, for a
// fleeting-vowel key, its nominatives (`льв` → `лев`, `лов`). Index lookups
// use them to find the candidate words of a vocabulary.
func (t Term) Prefixes() []string {
	out := []string{t.Stem}
	for _, k := range t.Keys {
		b := keyBase(k)
		out = append(out, b)
		if strings.HasPrefix(k, keyFleeting) {
			out = append(out, fleetingNominatives(b)...)
		}
	}
	return out
}

// fleetingNominatives returns the nominatives whose fleeting vowel gives
// the oblique base b: X+C from X+е/о+C, and X+ь+C from X+е/о+C.
func fleetingNominatives(b string) []string {
	r := []rune(b)
	n := len(r)
	if n < 2 {
		return nil
	}
	var out []string
	for _, v := range []string{"е", "о"} {
		out = append(out, string(r[:n-1])+v+string(r[n-1]))
		if r[n-2] == 'ь' {
			out = append(out, string(r[:n-2])+v+string(r[n-1]))
		}
	}
	return out
}
