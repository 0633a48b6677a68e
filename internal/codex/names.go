package codex

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// The name finder reads a book without a model. It counts how every word
// written with a capital letter is used: in the middle of a sentence, at
// its start, or in lower case elsewhere. Words that are forms of one
// another (textnorm: Симонов, Симонова, Симонову) form one cluster. A
// cluster is a name when it is written with a capital letter in the middle
// of a sentence more often than in lower case. Runs of names, titles
// (Mr., Lady, Мосье), initials (Ф. К.) and particles (de) form compound
// names: "Mr. Darcy", "Фёдор Карлович Штейн", "Ф. К. Штейн".

// wordStat counts the uses of one surface word written with a capital.
type wordStat struct {
	mid, start int
}

// cluster is a set of surface words that are forms of one name.
type cluster struct {
	forms map[string]int // surface form → uses written with a capital
	mids  map[string]int // surface form → uses in the middle of a sentence
	mid   int            // uses in the middle of a sentence
	lower int            // uses of the same stems in lower case
}

// name reports whether the cluster is used as a name.
func (c *cluster) name() bool { return c.mid >= 1 && c.lower < c.mid }

// variants returns the display of each group of the cluster's forms that
// share a stem (two when a colloquial patronymic joined the full one:
// Антоныч and Антонович), the cluster's own display first.
func (c *cluster) variants() []string {
	groups := map[string]*cluster{}
	for f, n := range c.forms {
		st := textnorm.Stem(f)
		g := groups[st]
		if g == nil {
			g = &cluster{forms: map[string]int{}, mids: map[string]int{}}
			groups[st] = g
		}
		g.forms[f] = n
		if m := c.mids[f]; m > 0 {
			g.mids[f] = m
		}
	}
	out := []string{c.display()}
	if len(groups) < 2 {
		return out
	}
	for _, g := range groups {
		if d := g.display(); !slices.Contains(out, d) && c.sameName(d, out[0]) {
			out = append(out, d)
		}
	}
	slices.Sort(out[1:])
	return out
}

// sameName reports whether two displays of the cluster differ only as a
// colloquial and a full patronymic do (the only way forms of one cluster
// get different stems other than by the name grammar).
func (c *cluster) sameName(a, b string) bool {
	pa, pb := patronymBase(textnorm.Fold(a)), patronymBase(textnorm.Fold(b))
	return pa != "" && pa == pb
}

// display is the form to show: the most used form in the middle of
// sentences (a word at a sentence start may be another word that only
// looks like a form: Ключ beside Верхние Ключи), or a shorter form it
// starts with (the nominative: Антон of Антона, Симонов of Симонову).
func (c *cluster) display() string {
	forms := c.mids
	if len(forms) == 0 {
		forms = c.forms
	}
	top := ""
	for f, n := range forms {
		if top == "" || n > forms[top] || n == forms[top] && (len(f) < len(top) || len(f) == len(top) && f < top) {
			top = f
		}
	}
	best := top
	for f := range forms {
		if len(f) < len(best) && strings.HasPrefix(top, f) {
			best = f
		}
	}
	return patronymNominative(best)
}

// patronymicCase matches a patronymic in an oblique case: the stem and the
// ending (Ильичу, Карловичем, Павловной).
var patronymicCase = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\p{Cyrillic}{2,}(?:ович|евич|ьич|ыч|ич))(?:а|у|ем|ом|е)$|^(\p{Cyrillic}{2,}(?:овн|евн|ичн))(?:ы|е|у|ой|ою)$`)
})

// obliqueCase matches the endings of an oblique case whose nominative is
// not in doubt: a noun in -ия (Олимпию, Франции → Олимпия, Франция) and a
// masculine name in the instrumental (Волковом, Вагенгеймом → Волков,
// Вагенгейм). Endings two declensions share (Риге of Рига, Петербурге of
// Петербург; Штейну; Некрасова, also a nominative) are left as written, and
// so is -ом after a surname's suffix: a surname's instrumental is -ым
// (Симоновым), so Волковом is another word (на Волковом, of Волково).
var obliqueCase = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\p{Cyrillic}{3,})(?:ию|ии)$|^(\p{Cyrillic}{3,}[бвгдзклмнпрстфх])ом$`)
})

// surnameStem reports whether the last two letters of a stem are a
// Russian surname's suffix (-ов, -ев, -ин, -ын).
func surnameStem(end string) bool {
	return end == "ов" || end == "ев" || end == "ин" || end == "ын"
}

// patronymNominative returns a patronymic in the nominative (Ильичу →
// Ильич, Павловну → Павловна) and a name in an oblique case whose
// nominative is not in doubt (obliqueCase) in the nominative, other words
// as they are: a name the text writes only in an oblique case is shown as
// a name.
func patronymNominative(w string) string {
	m := patronymicCase().FindStringSubmatch(strings.ToLower(w))
	if m == nil {
		if o := obliqueCase().FindStringSubmatch(strings.ToLower(w)); o != nil {
			r := []rune(w)
			if o[1] != "" {
				return string(r[:len([]rune(o[1]))]) + "ия"
			}
			if stem := []rune(o[2]); !surnameStem(string(stem[len(stem)-2:])) {
				return string(r[:len(stem)])
			}
		}
		return w
	}
	r := []rune(w)
	if m[1] != "" {
		return string(r[:len([]rune(m[1]))])
	}
	return string(r[:len([]rune(m[2]))]) + "а"
}

// scanned is an item read by the finder.
type scanned struct {
	item *document.Item
	toks []tok
}

// finder holds what the text says about names.
type finder struct {
	items    []scanned
	words    map[string]*wordStat // surface word written with a capital → uses
	lower    map[string]int       // stem → uses in lower case
	clusters []*cluster
	of       map[string]int // surface word → cluster
}

// newFinder reads the items: every item but code, HTML, front matter and
// thematic breaks; headings are read for their names but not counted
// (their words are capitalized as titles).
func newFinder(items []*document.Item) *finder {
	f := &finder{words: map[string]*wordStat{}, lower: map[string]int{}, of: map[string]int{}}
	for _, it := range items {
		switch it.Kind {
		case document.Code, document.HTML, document.FrontMatter, document.ThematicBreak:
			continue
		}
		toks := tokens(it.Text)
		f.items = append(f.items, scanned{it, toks})
		if it.Kind == document.Heading {
			continue
		}
		for _, t := range toks {
			switch t.class {
			case lowerWord:
				f.lower[textnorm.Stem(t.w)]++
			case titleWord:
				s := f.words[t.w]
				if s == nil {
					s = &wordStat{}
					f.words[t.w] = s
				}
				if t.initial {
					s.start++
				} else {
					s.mid++
				}
			}
		}
	}
	f.cluster()
	return f
}

// cluster groups the capitalized words into clusters of forms.
func (f *finder) cluster() {
	words := make([]string, 0, len(f.words))
	for w := range f.words {
		n := textnorm.Fold(w)
		if utf8.RuneCountInString(n) < 2 || stopNames[n] || titles[n] {
			continue
		}
		words = append(words, w)
	}
	sort.Strings(words)
	parent := make([]int, len(words))
	for i := range parent {
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	buckets := map[string][]int{}
	for i, w := range words {
		buckets[prefix2(w)] = append(buckets[prefix2(w)], i)
	}
	terms := make([]textnorm.Term, len(words))
	for i, w := range words {
		terms[i] = textnorm.NewTerm(w)
	}
	for _, b := range buckets {
		for x := 0; x < len(b); x++ {
			for y := x + 1; y < len(b); y++ {
				i, j := b[x], b[y]
				if root(i) != root(j) && (terms[i].Matches(words[j]) || terms[j].Matches(words[i])) {
					parent[root(j)] = root(i)
				}
			}
		}
	}
	patronyms := map[string]int{} // colloquial and full patronymics: Антоныч, Антонович
	for i, w := range words {
		if base := patronymBase(textnorm.Fold(w)); base != "" {
			if j, ok := patronyms[base]; ok {
				parent[root(i)] = root(j)
			} else {
				patronyms[base] = i
			}
		}
	}
	byRoot := map[int]int{}
	for i, w := range words {
		r := root(i)
		ci, ok := byRoot[r]
		if !ok {
			ci = len(f.clusters)
			byRoot[r] = ci
			f.clusters = append(f.clusters, &cluster{forms: map[string]int{}, mids: map[string]int{}})
		}
		c := f.clusters[ci]
		st := f.words[w]
		c.forms[w] += st.mid + st.start
		if st.mid > 0 {
			c.mids[w] += st.mid
		}
		c.mid += st.mid
		f.of[w] = ci
	}
	for _, c := range f.clusters {
		stems := map[string]bool{}
		for w := range c.forms {
			stems[textnorm.Stem(w)] = true
		}
		for s := range stems {
			c.lower += f.lower[s]
		}
	}
}

// patronymBase returns the name a masculine patronymic is made from, so
// that the colloquial form joins the full one (Антоныч and Антонович →
// антон, Алексеич and Алексеевич → алексе); "" for other words.
func patronymBase(norm string) string {
	if !isPatronymic(norm) {
		return ""
	}
	for _, end := range []string{"а", "у", "ем", "ом", "е"} {
		if b, ok := strings.CutSuffix(norm, end); ok && isPatronymic(b) {
			norm = b
			break
		}
	}
	for _, suf := range []string{"ович", "евич", "ыч", "ич"} {
		if b, ok := strings.CutSuffix(norm, suf); ok {
			return b
		}
	}
	return ""
}

// prefix2 returns the first two runes of a word, folded.
func prefix2(w string) string {
	n := textnorm.Fold(w)
	if i := indexRune(n, 2); i >= 0 {
		return n[:i]
	}
	return n
}

// indexRune returns the byte offset of rune k of s, or -1.
func indexRune(s string, k int) int {
	for i := range s {
		if k == 0 {
			return i
		}
		k--
	}
	return -1
}

// nameWord returns the cluster of a word written with a capital that is a
// name, or -1.
func (f *finder) nameWord(t tok) int {
	if t.class != titleWord {
		return -1
	}
	ci, ok := f.of[t.w]
	if !ok || !f.clusters[ci].name() {
		return -1
	}
	return ci
}

// firstName returns the cluster of a word that starts a sentence and is
// never written in lower case (Фёдор in "— Фёдор Карлович Штейн …"), for a
// word followed by a name; or -1.
func (f *finder) firstName(t tok) int {
	if t.class != titleWord {
		return -1
	}
	if ci, ok := f.of[t.w]; ok && f.clusters[ci].lower == 0 {
		return ci
	}
	return -1
}

// anyWord returns the cluster of any word written with a capital (after a
// title every such word is a name: Mrs. Long), or -1.
func (f *finder) anyWord(t tok) int {
	if t.class != titleWord {
		return -1
	}
	if ci, ok := f.of[t.w]; ok {
		return ci
	}
	return -1
}
