package codex

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/aitexteditor/aite/internal/textnorm"
)

// Grouping: each distinct compound name is a node; nodes that name one
// being are linked, and every connected group becomes an entry. The links,
// all deterministic:
//
//  1. title: "Mr. Darcy" and "Darcy" when that title is the only one used
//     with the bare name, or is a man's title holding more than half of its
//     titled uses: a bare surname names the man (Bingley is Mr. Bingley,
//     not Miss Bingley), and a name shared otherwise stays apart ("Bennet":
//     Mrs., Mr. and Miss Bennet);
//  2. first names: "Elizabeth" and "Elizabeth Bennet", "Фёдор Карлович" and
//     "Фёдор Карлович Штейн", "Lady Catherine" and "Lady Catherine de
//     Bourgh", when every longer name that starts with the shorter one
//     continues it the same way (not "William": William Collins, William
//     Goulding), and the surname is not owned by one title by rule 1 ("Mary
//     King" is Miss King, not Mary);
//  3. surnames: "Штейн" and "Фёдор Карлович Штейн" when every name ending
//     in the surname agrees with the others (the same first names, initials
//     that fit them) and none has a title;
//  4. first name and surname: "George Wickham" joins "Mr. Wickham" when
//     "George" is used alone less often than with the surname and the
//     surname is owned by a title (rule 1);
//  5. initials: "Ф. К. Штейн" joins the one full name with that surname
//     whose first names start with those letters;
//  6. apposition: "Звёздочкин, Аркадий Львович" (a surname, a comma, a
//     first name and a patronymic) links the two;
//  7. possessives: "Варина мать" joins "Варя" when "Варина" is only ever
//     used alone and every form of it is a possessive adjective of the
//     one more used first name in -а/-я with that stem (possessiveOwner);
//  8. pet forms: "Lizzy" joins "Elizabeth", "Варя" joins "Варвара", when
//     the form is a well-known short form (diminutives.go) of exactly one
//     full first name the book uses alone.
//
// A group is a place when at least 40 % of its uses stand after a
// locative preposition ("в Тверь"), after a settlement's common noun ("в
// городке Верхние Ключи") or before a street's ("с Нижней улицы").

// junk reports a compound of two names used once, after a locative
// preposition, that are both names of their own used at least three times
// each: "from London Lydia came" is a place and a person side by side.
func junk(c *compound, comps map[string]*compound) bool {
	if c.count != 1 || c.loc == 0 || len(c.names) != 2 || c.titled || len(c.inits) > 0 || len(c.parts) != 2 {
		return false
	}
	for _, p := range c.parts {
		if b := comps[run{parts: []part{p}}.key()]; b == nil || b.count < 3 {
			return false
		}
	}
	return true
}

// compound is a distinct compound name with its uses.
type compound struct {
	key      string
	parts    []part
	count    int          // occurrences
	items    map[int]bool // finder item indices
	first    int          // the first item index
	loc      int          // occurrences after a locative preposition
	titled   bool
	inits    []string
	names    []int // clusters of the name parts, in order
	patronym bool
}

// loneName reports a compound of one name alone: no title, no other name
// (rules 7 and 8 link only those).
func (c *compound) loneName() bool {
	return len(c.parts) == 1 && c.parts[0].kind == pName && !c.titled
}

// bare returns the key of the same names without a title.
func (c *compound) bare() string {
	var ks []string
	for _, p := range c.parts {
		if p.kind != pTitle {
			ks = append(ks, run{parts: []part{p}}.key())
		}
	}
	return strings.Join(ks, "|")
}

// maleTitles are the titles of men (folded).
var maleTitles = map[string]bool{"mr": true, "sir": true, "lord": true, "colonel": true, "col": true,
	"captain": true, "capt": true, "dr": true, "general": true, "major": true, "lieutenant": true,
	"reverend": true, "rev": true, "monsieur": true, "мосье": true, "мсье": true, "месье": true, "uncle": true}

// locatives are the prepositions after which a name is a place.
var locatives = map[string]bool{"in": true, "at": true, "from": true, "near": true, "into": true, "towards": true,
	"в": true, "во": true, "из": true, "под": true, "около": true, "возле": true}

// placeNouns are the common nouns (folded, in their case forms) a place
// name stands beside: after them ("в городке Верхние Ключи") or, for
// streets and squares, before them ("с Нижней улицы"). A use there counts
// as a place's, like one after a locative preposition.
var placeNouns = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, forms := range []string{
		"город города городу городом городе городок городка городку городком городке",
		"деревня деревни деревне деревню деревней село села селу селом селе",
		"посёлок посёлка посёлку посёлком посёлке станция станции станцию станцией",
		"губерния губернии губернию губернией уезд уезда уезду уездом уезде",
		"улица улицы улице улицу улицей площадь площади площадью переулок переулка переулку переулком переулке",
		"проспект проспекта проспекту проспектом проспекте набережная набережной набережную",
		"река реки реке реку рекой озеро озера озеру озером озере",
		"town city village county parish street square lane river",
	} {
		for _, w := range strings.Fields(forms) {
			out[textnorm.Fold(w)] = true
		}
	}
	return out
})

// compounds gathers the runs into compound names.
func (f *finder) compounds(runs []run) (map[string]*compound, [][2]string) {
	out := map[string]*compound{}
	var appositions [][2]string
	for k, r := range runs {
		key := r.key()
		c := out[key]
		if c == nil {
			c = &compound{key: key, parts: r.parts, items: map[int]bool{}, first: r.item}
			for _, p := range r.parts {
				switch p.kind {
				case pTitle:
					c.titled = true
				case pInitial:
					c.inits = append(c.inits, p.norm)
				case pName:
					c.names = append(c.names, p.cluster)
					c.patronym = c.patronym || isPatronymic(textnorm.Fold(p.text))
				}
			}
			out[key] = c
		}
		c.count++
		c.items[r.item] = true
		s := f.items[r.item]
		before, after := textnorm.Fold(wordBefore(s.item.Text, r.start)), wordAfter(s.item.Text, r.end)
		if locatives[before] || placeNouns()[before] || placeNouns()[textnorm.Fold(after)] && strings.ToLower(after) == after {
			c.loc++
		}
		if k > 0 && runs[k-1].item == r.item && isApposition(s.item.Text, runs[k-1], r, f) {
			appositions = append(appositions, [2]string{runs[k-1].key(), key})
		}
	}
	return out, appositions
}

// wordBefore returns the word just before offset i (past white space),
// or "" when punctuation stands there.
func wordBefore(text string, i int) string {
	t := strings.TrimRight(text[:i], " \t\n\u00a0")
	j := strings.LastIndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) })
	return t[j+1:]
}

// wordAfter returns the word just after offset i (past white space), or ""
// when punctuation stands there.
func wordAfter(text string, i int) string {
	t := strings.TrimLeft(text[i:], " \t\n\u00a0")
	if j := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }); j >= 0 {
		t = t[:j]
	}
	return t
}

// isApposition reports "Surname, First Patronymic".
func isApposition(text string, a, b run, f *finder) bool {
	if strings.TrimSpace(text[a.end:b.start]) != "," || len(a.parts) != 1 || len(b.parts) != 2 {
		return false
	}
	return a.parts[0].kind == pName && b.parts[0].kind == pName && b.parts[1].kind == pName &&
		isPatronymic(textnorm.Fold(b.parts[1].text)) && !isPatronymic(textnorm.Fold(a.parts[0].text))
}

// unionFind links keys.
type unionFind map[string]string

func (u unionFind) root(k string) string {
	for {
		p, ok := u[k]
		if !ok || p == k {
			return k
		}
		if gp, ok := u[p]; ok {
			u[k] = gp
		}
		k = p
	}
}

func (u unionFind) link(a, b string) {
	ra, rb := u.root(a), u.root(b)
	if ra != rb {
		u[rb] = ra
	}
}

// group links the compounds by the rules above and returns the groups,
// largest first; why records each link's reason by key.
func (f *finder) group(comps map[string]*compound, appositions [][2]string) ([][]*compound, map[string]string) {
	u := unionFind{}
	why := map[string]string{}
	link := func(a, b *compound, reason string) {
		u.link(a.key, b.key)
		why[b.key] = reason
	}
	keys := make([]string, 0, len(comps))
	for k, c := range comps {
		if !junk(c, comps) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	name := func(c *compound) string { return f.display(c) }
	titledBy := map[string]map[string]int{} // bare key → title → uses
	for _, k := range keys {
		c := comps[k]
		if c.titled && len(c.inits) == 0 {
			b := c.bare()
			if titledBy[b] == nil {
				titledBy[b] = map[string]int{}
			}
			titledBy[b][c.parts[0].norm] += c.count
		}
	}
	dominant := map[string]*compound{} // bare key → the titled compound that owns it
	for _, k := range keys {           // rule 1
		c := comps[k]
		if !c.titled || len(c.inits) > 0 {
			continue
		}
		b := c.bare()
		total := 0
		for _, n := range titledBy[b] {
			total += n
		}
		if own := titledBy[b][c.parts[0].norm]; own == total || c.count >= 2 && maleTitles[c.parts[0].norm] && 2*own > total {
			dominant[b] = c
			if bc := comps[b]; bc != nil && !junk(bc, comps) {
				link(c, bc, fmt.Sprintf("%q holds %d of the %d titled uses of %q", c.parts[0].text, own, total, name(bc)))
			}
		}
	}
	for _, k := range keys { // rule 2
		a := comps[k]
		longer := continuations(a, comps, keys)
		if longer == nil || len(longer.names) > 1 && dominant[run{parts: longer.parts[len(longer.parts)-1:]}.key()] != nil && !a.titled {
			continue // "Mary King" is Miss King's, not Mary's
		}
		link(a, longer, fmt.Sprintf("every longer name starting with %q continues it so", name(a)))
	}
	for _, k := range keys { // rule 3
		a := comps[k]
		if full := surnameOwner(a, comps, keys); full != nil {
			link(full, a, fmt.Sprintf("every name ending in %q is %q's", name(a), name(full)))
		}
	}
	for _, k := range keys { // rule 4
		c := comps[k]
		if c.titled || len(c.inits) > 0 || len(c.names) != 2 || c.patronym {
			continue
		}
		firstKey := run{parts: c.parts[:1]}.key()
		surname := run{parts: c.parts[len(c.parts)-1:]}.key()
		if owner := dominant[surname]; owner != nil && (comps[firstKey] == nil || comps[firstKey].count < c.count) {
			link(owner, c, fmt.Sprintf("%q is used mostly with the surname, which %q owns", c.parts[0].text, name(owner)))
		}
	}
	for _, k := range keys { // rule 5
		c := comps[k]
		if full := initialsOwner(c, comps, keys); full != nil {
			link(full, c, fmt.Sprintf("the initials fit %q", name(full)))
		}
	}
	for _, ap := range appositions { // rule 6
		if a, b := comps[ap[0]], comps[ap[1]]; a != nil && b != nil {
			link(a, b, fmt.Sprintf("%q, %q stand side by side", name(a), name(b)))
		}
	}
	for _, k := range keys { // rule 7
		c := comps[k]
		if base := possessiveOwner(c, comps, keys, f); base != nil {
			link(base, c, fmt.Sprintf("%q is the possessive of %q", name(c), name(base)))
		}
	}
	for _, k := range keys { // rule 8
		c := comps[k]
		if full := diminutiveOwner(c, comps, keys, f, dominant); full != nil {
			link(full, c, fmt.Sprintf("%q is a usual short form of %q", name(c), name(full)))
		}
	}
	byRoot := map[string][]*compound{}
	for _, k := range keys {
		r := u.root(k)
		byRoot[r] = append(byRoot[r], comps[k])
	}
	groups := make([][]*compound, 0, len(byRoot))
	for _, g := range byRoot {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		ui, uj := uses(groups[i]), uses(groups[j])
		if ui != uj {
			return ui > uj
		}
		return groups[i][0].key < groups[j][0].key
	})
	return groups, why
}

func uses(g []*compound) int {
	n := 0
	for _, c := range g {
		n += c.count
	}
	return n
}

// continuations returns the longest compound that a starts when every
// compound starting with a (with the same title, or a has none) forms one
// chain of prefixes; nil otherwise.
func continuations(a *compound, comps map[string]*compound, keys []string) *compound {
	if len(a.inits) > 0 || len(a.names) == 0 || a.patronym && len(a.names) == 1 {
		return nil
	}
	var chain []*compound
	for _, k := range keys {
		b := comps[k]
		if b == a || len(b.parts) <= len(a.parts) || len(b.inits) > 0 || a.titled != b.titled {
			continue
		}
		if !sameParts(a.parts, b.parts[:len(a.parts)]) {
			continue
		}
		chain = append(chain, b)
	}
	if len(chain) == 0 {
		return nil
	}
	sort.Slice(chain, func(i, j int) bool { return len(chain[i].parts) < len(chain[j].parts) })
	for i := 1; i < len(chain); i++ {
		if !sameParts(chain[i-1].parts, chain[i].parts[:len(chain[i-1].parts)]) {
			return nil
		}
	}
	return chain[len(chain)-1]
}

// surnameOwner returns the full name a bare surname belongs to, when every
// untitled name ending in it agrees; nil when any such name has a title or
// they disagree.
func surnameOwner(a *compound, comps map[string]*compound, keys []string) *compound {
	if a.titled || len(a.inits) > 0 || len(a.names) != 1 || a.patronym {
		return nil
	}
	var owner *compound
	for _, k := range keys {
		b := comps[k]
		if b == a || len(b.names) == 0 || b.names[len(b.names)-1] != a.names[0] || len(b.inits) > 0 {
			continue
		}
		if b.titled {
			return nil // Miss King: rule 1 decides
		}
		if len(b.names) < 2 {
			continue
		}
		switch {
		case owner == nil || len(b.names) > len(owner.names) && slices.Equal(owner.names[:len(owner.names)-1], b.names[:len(owner.names)-1]):
			owner = b
		case len(b.names) <= len(owner.names) && slices.Equal(b.names[:len(b.names)-1], owner.names[:len(b.names)-1]):
		default:
			return nil
		}
	}
	return owner
}

// initialsOwner returns the one full name whose surname is the last name of
// c and whose first names start with c's initials.
func initialsOwner(c *compound, comps map[string]*compound, keys []string) *compound {
	if len(c.inits) == 0 || len(c.names) != 1 || c.titled {
		return nil
	}
	var owner *compound
	for _, k := range keys {
		b := comps[k]
		if b == c || len(b.inits) > 0 || len(b.names) != len(c.inits)+1 || b.names[len(b.names)-1] != c.names[0] {
			continue
		}
		fits := true
		for i, in := range c.inits {
			fits = fits && strings.HasPrefix(textnorm.Fold(b.parts[i].text), in)
		}
		if !fits {
			continue
		}
		if owner != nil {
			return nil
		}
		owner = b
	}
	return owner
}

// possessiveForm matches a Russian possessive adjective made from a name
// in -а/-я (Варин, Варина, Вариной of Варя; Машину of Маша): the stem and
// the adjective's ending.
var possessiveForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\p{Cyrillic}{2,})ин(?:а|у|ой|ою|ы|ым|ых|ыми|ом|ому|ого|е|о)?$`)
})

// possessiveOwner returns the name a possessive adjective is made from:
// c is one name used alone (never with a title, initials or another
// name), every form of it is a possessive of one stem, and exactly one
// compound is a lone first name whose forms hold that stem + а or я and is
// used more often. nil otherwise (a surname in -ин is written with a first
// name somewhere, or no such name is used).
func possessiveOwner(c *compound, comps map[string]*compound, keys []string, f *finder) *compound {
	if !c.loneName() || c.patronym {
		return nil
	}
	stem := ""
	for form := range f.clusters[c.parts[0].cluster].forms {
		m := possessiveForm().FindStringSubmatch(textnorm.Fold(form))
		if m == nil || stem != "" && m[1] != stem {
			return nil
		}
		stem = m[1]
	}
	var owner *compound
	for _, k := range keys {
		b := comps[k]
		if b != c && slices.Contains(b.names, c.parts[0].cluster) {
			return nil // with another name or a title: a surname
		}
		if b == c || !b.loneName() || b.count <= c.count {
			continue
		}
		if forms := f.clusters[b.parts[0].cluster].forms; !hasForm(forms, stem+"а") && !hasForm(forms, stem+"я") {
			continue
		}
		if owner != nil {
			return nil
		}
		owner = b
	}
	return owner
}

// hasForm reports whether a form of forms folds to folded.
func hasForm(forms map[string]int, folded string) bool {
	for f := range forms {
		if textnorm.Fold(f) == folded {
			return true
		}
	}
	return false
}

func sameParts(a, b []part) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].kind != b[i].kind || a[i].cluster != b[i].cluster || a[i].norm != b[i].norm {
			return false
		}
	}
	return true
}
