package textnorm

// Fast paths for the Snowball stemmers.
//
// github.com/kljensen/snowball spends about 3 µs on a word, most of it
// converting every candidate suffix from string to []rune and back. The
// functions below are a line-by-line port of its russian.Stem and
// english.Stem (v0.10.0, stemStopWords = true) for the common case only:
// Russian words made of the letters а..я and English words made of a..z,
// digits and the ASCII apostrophe, of at most maxFastRunes letters. Every
// other word goes to the library itself. The tests check the ports
// against the library on the Snowball reference vocabularies, the sample
// books and random words (snowfast_test.go); library quirks are kept on
// purpose (see STEMMING.md), the aim is byte-identical output.

// maxFastRunes bounds the words the fast paths handle (longer ones go to
// the library).
const maxFastRunes = 64

// ---------------------------------------------------------------------
// Russian. A letter а..я (U+0430..U+044F) is held as its code 0..31.

// ruCode returns the codes of a string of the letters а..я.
func ruCode(s string) []byte {
	var out []byte
	for _, r := range s {
		out = append(out, byte(r-'а'))
	}
	return out
}

// ruSuffixes is a suffix list in the library's order; needAR[i] tells
// whether suffix i is removed only when preceded by а or я in RV. byLast
// lists, for each last letter, the suffixes that end with it, in list
// order: only those can match a word ending with that letter.
type ruSuffixes struct {
	list   [][]byte
	needAR []bool
	byLast [32][]uint8
}

// ruList makes a suffix list without а/я conditions.
func ruList(list ...string) ruSuffixes { return newRuSuffixes(list) }

func newRuSuffixes(list []string, needAR ...string) ruSuffixes {
	s := ruSuffixes{needAR: make([]bool, len(list))}
	for i, suf := range list {
		c := ruCode(suf)
		s.list = append(s.list, c)
		s.byLast[c[len(c)-1]] = append(s.byLast[c[len(c)-1]], uint8(i))
		for _, n := range needAR {
			if suf == n {
				s.needAR[i] = true
			}
		}
	}
	return s
}

// Codes of the letters the stemmer tests one by one.
const (
	ruA        = 0 // а
	ruN        = 'н' - 'а'
	ruYa       = 'я' - 'а'
	ruSoftSign = 'ь' - 'а'
)

// ruVowels has bit c set for the vowel codes а е и о у ы э ю я.
const ruVowels = 1<<ruA | 1<<('е'-'а') | 1<<('и'-'а') | 1<<('о'-'а') |
	1<<('у'-'а') | 1<<('ы'-'а') | 1<<('э'-'а') | 1<<('ю'-'а') | 1<<('я'-'а')

func ruVowel(c byte) bool { return ruVowels>>c&1 != 0 }

var (
	ruGerund = newRuSuffixes([]string{
		"ившись", "ывшись", "вшись", "ивши", "ывши", "вши", "ив", "ыв", "в",
	}, "в", "вши", "вшись")
	ruReflexive  = ruList("ся", "сь")
	ruAdjectival = ruList(
		"ими", "ыми", "его", "ого", "ему", "ому", "ее", "ие",
		"ые", "ое", "ей", "ий", "ый", "ой", "ем", "им", "ым",
		"ом", "их", "ых", "ую", "юю", "ая", "яя", "ою", "ею",
	)
	ruParticiple = newRuSuffixes([]string{
		"ивш", "ывш", "ующ", "ем", "нн", "вш", "ющ", "щ",
	}, "ем", "нн", "вш", "ющ", "щ")
	ruVerb = newRuSuffixes([]string{
		"уйте", "ейте", "ыть", "ыло", "ыли", "ыла", "уют", "ует",
		"нно", "йте", "ишь", "ить", "ите", "ило", "или", "ила",
		"ешь", "ете", "ены", "ено", "ена", "ят", "ют", "ыт", "ым",
		"ыл", "ую", "уй", "ть", "ны", "но", "на", "ло", "ли", "ла",
		"ит", "им", "ил", "ет", "ен", "ем", "ей", "ю", "н", "л", "й",
	}, "ла", "на", "ете", "йте", "ли", "й", "л", "ем", "н",
		"ло", "но", "ет", "ют", "ны", "ть", "ешь", "нно")
	ruNoun = ruList(
		"иями", "ями", "иях", "иям", "ием", "ией", "ами", "ях",
		"ям", "ья", "ью", "ье", "ом", "ой", "ов", "ия", "ию",
		"ий", "ии", "ие", "ем", "ей", "еи", "ев", "ах", "ам",
		"я", "ю", "ь", "ы", "у", "о", "й", "и", "е", "а",
	)
	ruI          = ruList("и")
	ruDerivation = ruList("ост", "ость")
	ruSuperl     = ruList("ейше", "ейш")
)

// ruWord is the library's SnowballWord for a Russian word (R1 is only
// needed to find R2).
type ruWord struct {
	rs     []byte
	r2, rv int
}

// hasSuffixIn is HasSuffixRunesIn(start, len(rs), suf).
func (w *ruWord) hasSuffixIn(start int, suf []byte) bool {
	n := len(w.rs)
	if len(suf) > n-start {
		return false
	}
	tail := w.rs[n-len(suf):]
	for i := len(suf) - 1; i >= 0; i-- {
		if tail[i] != suf[i] {
			return false
		}
	}
	return true
}

// firstSuffixIn is FirstSuffixIn(start, len(rs), list...): the index of
// the first suffix of s that w ends with inside rs[start:], or -1.
func (w *ruWord) firstSuffixIn(start int, s *ruSuffixes) int {
	if len(w.rs) == 0 {
		return -1
	}
	for _, i := range s.byLast[w.rs[len(w.rs)-1]] {
		if w.hasSuffixIn(start, s.list[i]) {
			return int(i)
		}
	}
	return -1
}

// removeLast is RemoveLastNRunes.
func (w *ruWord) removeLast(n int) {
	w.rs = w.rs[:len(w.rs)-n]
	w.r2, w.rv = min(w.r2, len(w.rs)), min(w.rv, len(w.rs))
}

// removeFirstSuffixIn is RemoveFirstSuffixIn; it reports whether a
// suffix was removed.
func (w *ruWord) removeFirstSuffixIn(start int, s *ruSuffixes) bool {
	if i := w.firstSuffixIn(start, s); i >= 0 {
		w.removeLast(len(s.list[i]))
		return true
	}
	return false
}

// precededByAR is precededByARinRV.
func (w *ruWord) precededByAR(suffixLen int) bool {
	idx := len(w.rs) - suffixLen - 1
	return idx >= w.rv && (w.rs[idx] == ruA || w.rs[idx] == ruYa)
}

// removeAR removes the first suffix of s in RV, subject to its а/я
// condition: if the first suffix found needs а/я and has none, nothing
// is removed (the library does not try the next suffix).
func (w *ruWord) removeAR(s *ruSuffixes) bool {
	i := w.firstSuffixIn(w.rv, s)
	if i < 0 || s.needAR[i] && !w.precededByAR(len(s.list[i])) {
		return false
	}
	w.removeLast(len(s.list[i]))
	return true
}

// vnv is romance.VnvSuffix with the Russian vowels.
func (w *ruWord) vnv(start int) int {
	for j := start + 1; j < len(w.rs); j++ {
		if ruVowel(w.rs[j-1]) && !ruVowel(w.rs[j]) {
			return j + 1
		}
	}
	return len(w.rs)
}

// step1 is the library's russian step1.
func (w *ruWord) step1() {
	if w.removeAR(&ruGerund) {
		return
	}
	w.removeFirstSuffixIn(w.rv, &ruReflexive)
	if w.removeFirstSuffixIn(w.rv, &ruAdjectival) { // removeAdjectivalEnding
		w.removeAR(&ruParticiple)
		return
	}
	if w.removeAR(&ruVerb) {
		return
	}
	w.removeFirstSuffixIn(w.rv, &ruNoun)
}

// step4 is the library's russian step4.
func (w *ruWord) step4() {
	nn := []byte{ruN, ruN}
	if w.hasSuffixIn(0, nn) {
		w.removeLast(1)
		return
	}
	if w.removeFirstSuffixIn(0, &ruSuperl) {
		if w.hasSuffixIn(0, nn) {
			w.removeLast(1)
		}
		return
	}
	if n := len(w.rs); n > 0 && w.rs[n-1] == ruSoftSign {
		w.removeLast(1)
	}
}

// stemRussianFast is russian.Stem(norm, true) for a word of the letters
// а..я only; ok is false for any other word. The stem is a prefix of norm
// (the algorithm only removes suffixes), so it is returned as a substring.
func stemRussianFast(norm string) (stem string, ok bool) {
	if len(norm) > 2*maxFastRunes || len(norm)%2 != 0 {
		return "", false
	}
	var buf [maxFastRunes]byte
	n := len(norm) / 2
	for i := range n {
		c0, c1 := norm[2*i], norm[2*i+1]
		switch {
		case c0 == 0xD0 && c1 >= 0xB0 && c1 <= 0xBF: // а..п
			buf[i] = c1 - 0xB0
		case c0 == 0xD1 && c1 >= 0x80 && c1 <= 0x8F: // р..я
			buf[i] = c1 - 0x80 + 16
		default:
			return "", false
		}
	}
	if n <= 2 {
		return norm, true
	}
	w := ruWord{rs: buf[:n]}
	r1 := w.vnv(0)
	w.r2 = w.vnv(r1)
	w.rv = n
	for i, c := range w.rs {
		if ruVowel(c) {
			w.rv = i + 1
			break
		}
	}
	w.step1()
	w.removeFirstSuffixIn(w.rv, &ruI)          // step2
	w.removeFirstSuffixIn(w.r2, &ruDerivation) // step3
	w.step4()
	return norm[:2*len(w.rs)], true
}

// ---------------------------------------------------------------------
// English, on bytes: the fast path takes ASCII words only, where a byte
// is a rune.

// enWord is the library's SnowballWord for an English word.
type enWord struct {
	rs     []byte
	r1, r2 int
}

func enVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// hasSuffix reports whether w ends with suf.
func (w *enWord) hasSuffix(suf string) bool {
	n := len(w.rs)
	return len(suf) <= n && string(w.rs[n-len(suf):]) == suf
}

// enSuffixes is a suffix list in the library's order; byLast lists, for
// each last byte, the suffixes that end with it, in list order.
type enSuffixes struct {
	list   []string
	byLast [128][]uint8
}

func enList(list ...string) enSuffixes {
	s := enSuffixes{list: list}
	for i, suf := range list {
		c := suf[len(suf)-1]
		s.byLast[c] = append(s.byLast[c], uint8(i))
	}
	return s
}

// firstSuffix is FirstSuffix: the first suffix of s w ends with, or "".
func (w *enWord) firstSuffix(s *enSuffixes) string {
	if len(w.rs) == 0 || w.rs[len(w.rs)-1] >= 128 {
		return ""
	}
	for _, i := range s.byLast[w.rs[len(w.rs)-1]] {
		if suf := s.list[i]; w.hasSuffix(suf) {
			return suf
		}
	}
	return ""
}

// clamp is resetR1R2.
func (w *enWord) clamp() {
	w.r1, w.r2 = min(w.r1, len(w.rs)), min(w.r2, len(w.rs))
}

// removeLast is RemoveLastNRunes.
func (w *enWord) removeLast(n int) {
	w.rs = w.rs[:len(w.rs)-n]
	w.clamp()
}

// replace is ReplaceSuffixRunes(n runes, repl, force=true).
func (w *enWord) replace(n int, repl string) {
	w.rs = append(w.rs[:len(w.rs)-n], repl...)
	w.clamp()
}

// vnv is romance.VnvSuffix with the English vowels.
func (w *enWord) vnv(start int) int {
	for j := start + 1; j < len(w.rs); j++ {
		if enVowel(w.rs[j-1]) && !enVowel(w.rs[j]) {
			return j + 1
		}
	}
	return len(w.rs)
}

// endsShortSyllable is the library's endsShortSyllable.
func (w *enWord) endsShortSyllable(i int) bool {
	if i == 2 {
		return enVowel(w.rs[0]) && !enVowel(w.rs[1])
	}
	if i >= 3 {
		s1, s2, s3 := w.rs[i-1], w.rs[i-2], w.rs[i-3]
		return !enVowel(s1) && s1 != 'w' && s1 != 'x' && s1 != 'Y' && enVowel(s2) && !enVowel(s3)
	}
	return false
}

// isShortWord is the library's isShortWord.
func (w *enWord) isShortWord() bool {
	return w.r1 >= len(w.rs) && w.endsShortSyllable(len(w.rs))
}

var (
	enR1Prefixes = []string{"gener", "commun", "arsen"}
	enStep0      = enList("'s'", "'s", "'")
	enStep1a     = enList("sses", "ied", "ies", "us", "ss", "s")
	enStep1b     = enList("eedly", "ingly", "edly", "ing", "eed", "ed")
	enUndo1b     = enList("at", "bl", "iz", "bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
	enStep2      = enList(
		"ational", "fulness", "iveness", "ization", "ousness",
		"biliti", "lessli", "tional", "alism", "aliti", "ation",
		"entli", "fulli", "iviti", "ousli", "anci", "abli",
		"alli", "ator", "enci", "izer", "bli", "ogi", "li",
	)
	enStep3 = enList(
		"ational", "tional", "alize", "icate", "ative",
		"iciti", "ical", "ful", "ness",
	)
	enStep4 = enList(
		"ement", "ance", "ence", "able", "ible", "ment",
		"ent", "ant", "ism", "ate", "iti", "ous", "ive",
		"ize", "ion", "al", "er", "ic",
	)
	enStep2Repl = map[string]string{
		"tional": "tion", "enci": "ence", "anci": "ance", "abli": "able",
		"entli": "ent", "izer": "ize", "ization": "ize", "ational": "ate",
		"ation": "ate", "ator": "ate", "alism": "al", "aliti": "al",
		"alli": "al", "fulness": "ful", "ousli": "ous", "ousness": "ous",
		"iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble",
		"fulli": "ful", "lessli": "less",
	}
	enStep3Repl = map[string]string{
		"ational": "ate", "tional": "tion", "alize": "al", "icate": "ic",
		"iciti": "ic", "ical": "ic", "ful": "", "ness": "",
	}
	// enSpecial is the library's stemSpecialWord.
	enSpecial = map[string]string{
		"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie",
		"tying": "tie", "idly": "idl", "gently": "gentl", "ugly": "ugli",
		"early": "earli", "only": "onli", "singly": "singl", "sky": "sky",
		"news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos",
		"bias": "bias", "andes": "andes", "inning": "inning",
		"innings": "inning", "outing": "outing", "outings": "outing",
		"canning": "canning", "cannings": "canning", "herring": "herring",
		"herrings": "herring", "earring": "earring", "earrings": "earring",
		"proceed": "proceed", "proceeds": "proceed", "proceeded": "proceed",
		"proceeding": "proceed", "exceed": "exceed", "exceeds": "exceed",
		"exceeded": "exceed", "exceeding": "exceed", "succeed": "succeed",
		"succeeds": "succeed", "succeeded": "succeed", "succeeding": "succeed",
	}
)

// preprocess is the library's english preprocess (normalizeApostrophes
// has nothing to do on ASCII); it returns the number of leading
// apostrophes trimmed.
func (w *enWord) preprocess() int {
	// trimLeftApostrophes, quirk included: a word of apostrophes only
	// keeps its last one.
	trim := 0
	for trim < len(w.rs)-1 && w.rs[trim] == '\'' {
		trim++
	}
	w.rs = w.rs[trim:]
	for i, c := range w.rs { // capitalizeYs
		if c == 'y' && (i == 0 || enVowel(w.rs[i-1])) {
			w.rs[i] = 'Y'
		}
	}
	w.r1 = -1
	for _, p := range enR1Prefixes {
		if len(w.rs) >= len(p) && string(w.rs[:len(p)]) == p {
			w.r1 = len(p)
			break
		}
	}
	if w.r1 < 0 {
		w.r1 = w.vnv(0)
	}
	w.r2 = w.vnv(w.r1)
	return trim
}

func (w *enWord) step0() {
	if suf := w.firstSuffix(&enStep0); suf != "" {
		w.removeLast(len(suf))
	}
}

func (w *enWord) step1a() {
	switch suf := w.firstSuffix(&enStep1a); suf {
	case "sses":
		w.replace(len(suf), "ss")
	case "ies", "ied":
		if len(w.rs) > 4 {
			w.replace(len(suf), "i")
		} else {
			w.replace(len(suf), "ie")
		}
	case "s":
		for i := 0; i < len(w.rs)-2; i++ {
			if enVowel(w.rs[i]) {
				w.removeLast(1)
				return
			}
		}
	}
}

func (w *enWord) step1b() {
	suf := w.firstSuffix(&enStep1b)
	switch suf {
	case "":
		return
	case "eed", "eedly":
		if len(suf) <= len(w.rs)-w.r1 {
			w.replace(len(suf), "ee")
		}
		return
	}
	hasVowel := false // "ed", "edly", "ing", "ingly"
	for i := 0; i < len(w.rs)-len(suf); i++ {
		if enVowel(w.rs[i]) {
			hasVowel = true
			break
		}
	}
	if !hasVowel {
		return
	}
	r1, r2 := w.r1, w.r2
	w.removeLast(len(suf))
	switch suf := w.firstSuffix(&enUndo1b); suf {
	case "":
		if w.isShortWord() {
			w.rs = append(w.rs, 'e')
			w.r1, w.r2 = len(w.rs), len(w.rs)
			return
		}
	case "at", "bl", "iz":
		w.replace(len(suf), suf+"e")
	default:
		w.removeLast(1)
	}
	w.r1, w.r2 = min(r1, len(w.rs)), min(r2, len(w.rs))
}

func (w *enWord) step1c() {
	n := len(w.rs)
	if n > 2 && (w.rs[n-1] == 'y' || w.rs[n-1] == 'Y') && !enVowel(w.rs[n-2]) {
		w.rs[n-1] = 'i'
	}
}

func (w *enWord) step2() {
	suf := w.firstSuffix(&enStep2)
	if suf == "" || len(suf) > len(w.rs)-w.r1 {
		return
	}
	n := len(w.rs)
	switch suf {
	case "li":
		if n >= 3 {
			switch w.rs[n-3] {
			case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
				w.removeLast(len(suf))
			}
		}
		return
	case "ogi":
		if n >= 4 && w.rs[n-4] == 'l' {
			w.replace(len(suf), "og")
		}
		return
	}
	w.replace(len(suf), enStep2Repl[suf])
}

func (w *enWord) step3() {
	suf := w.firstSuffix(&enStep3)
	if suf == "" || len(suf) > len(w.rs)-w.r1 {
		return
	}
	if suf == "ative" {
		if len(w.rs)-w.r2 >= 5 {
			w.removeLast(len(suf))
		}
		return
	}
	w.replace(len(suf), enStep3Repl[suf])
}

func (w *enWord) step4() {
	suf := w.firstSuffix(&enStep4)
	if suf == "" || len(suf) > len(w.rs)-w.r2 {
		return
	}
	if suf == "ion" {
		if n := len(w.rs); n >= 4 && (w.rs[n-4] == 's' || w.rs[n-4] == 't') {
			w.removeLast(len(suf))
		}
		return
	}
	w.removeLast(len(suf))
}

func (w *enWord) step5() {
	lri := len(w.rs) - 1
	if w.r1 > lri {
		return
	}
	if w.rs[lri] == 'e' {
		if w.r2 <= lri || !w.endsShortSyllable(lri) {
			w.removeLast(1)
		}
	} else if w.r2 <= lri && w.rs[lri] == 'l' && lri-1 >= 0 && w.rs[lri-1] == 'l' {
		w.removeLast(1)
	}
}

// stemEnglishFast is english.Stem(norm, true) for a word of the bytes
// a..z, 0..9 and ' only; ok is false for any other word. When the stem is
// a substring of norm (the usual case) no memory is allocated.
func stemEnglishFast(norm string) (stem string, ok bool) {
	if len(norm) > maxFastRunes {
		return "", false
	}
	for i := 0; i < len(norm); i++ {
		if c := norm[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '\'') {
			return "", false
		}
	}
	if len(norm) <= 2 {
		return norm, true
	}
	if s, ok := enSpecial[norm]; ok {
		return s, true
	}
	var buf [maxFastRunes + 8]byte // room for the letters step 1b appends
	w := enWord{rs: append(buf[:0], norm...)}
	trim := w.preprocess()
	w.step0()
	w.step1a()
	w.step1b()
	w.step1c()
	w.step2()
	w.step3()
	w.step4()
	w.step5()
	for i, c := range w.rs { // postprocess: uncapitalizeYs
		if c == 'Y' {
			w.rs[i] = 'y'
		}
	}
	if rest := norm[trim:]; len(w.rs) <= len(rest) && rest[:len(w.rs)] == string(w.rs) {
		return rest[:len(w.rs)], true
	}
	return string(w.rs), true
}
