// Package codexgold measures a codex against the gold facts of the shared
// books (../shared/data/books/gold: who is mentioned in which block, and
// every name each character goes by). Tests and benchmarks use it; it reads
// the books in place through testbook and skips when they are absent.
//
// What is measured, per main character C and the codex entry E that names
// C's main name:
//
//   - found: E exists and one of E's names is one of C's gold names;
//   - alias recall: of C's gold names that occur in the text, the share
//     E's names find (the name, scanned with the codex, is a mention of E);
//   - alias precision: of E's names that occur in the text, the share used
//     mostly (in at least half of the blocks naming them) in blocks where
//     the gold says C is present (persons or mentions);
//   - mention recall: of the blocks whose gold mentions hold C and whose
//     text holds one of C's literal names (English: any gold name, as the
//     gold's mentions are literal; Russian: a surface form holding a
//     capitalized name word), the share where the codex finds E;
//   - mention precision: of the blocks where the codex finds E, the share
//     where the gold has C in persons or mentions.
package codexgold

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
)

// The shared books with gold.
const (
	Russian = "zapiski_iz_podpolia.md"
	English = "PrideAndPrejudice.md"
)

// Block is one line of BOOK.gold.jsonl.
type Block struct {
	Index    int      `json:"index"`
	Persons  []string `json:"persons"`
	Mentions []string `json:"mentions"`
	SHA1     string   `json:"text_sha1"`
}

// Character is a main character with its gold names.
type Character struct {
	ID    string
	Main  string   // the main name
	Names []string // every literal name the text uses for it (that occurs in the text)
	// Words are the capitalized name words (Russian), for literal checks.
	Words []string
}

// Book is a shared book with its gold.
type Book struct {
	Name   string
	Doc    *document.Document
	Blocks []Block
	Main   []Character
}

// Load reads a shared book and its gold, skipping the test when the shared
// folder is absent. It checks that the gold's blocks are the book's items.
func Load(tb testing.TB, name string) *Book {
	tb.Helper()
	src, ok := testbook.Books(tb)[name]
	if !ok {
		tb.Skipf("no %s in %s", name, testbook.Dir())
	}
	b := &Book{Name: name, Doc: markdown.Parse(src)}
	b.Blocks = loadBlocks(tb, name)
	if len(b.Blocks) != b.Doc.Len() {
		tb.Fatalf("%s: %d gold blocks, %d items", name, len(b.Blocks), b.Doc.Len())
	}
	for i, it := range b.Doc.Items() {
		h := sha1.Sum([]byte(b.Doc.Markdown(it)))
		if b.Blocks[i].SHA1 != hex.EncodeToString(h[:]) {
			tb.Fatalf("%s: item %s is not gold block %d", name, it.Pointer(), i)
		}
	}
	raw, err := os.ReadFile(filepath.Join(testbook.Dir(), "gold", strings.TrimSuffix(name, ".md")+".characters.json"))
	if err != nil {
		tb.Fatal(err)
	}
	text := string(src)
	if name == English {
		b.Main = englishMain(tb, raw, text)
	} else {
		b.Main = russianMain(tb, raw, text)
	}
	return b
}

func loadBlocks(tb testing.TB, name string) []Block {
	f, err := os.Open(filepath.Join(testbook.Dir(), "gold", strings.TrimSuffix(name, ".md")+".gold.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []Block
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var b Block
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// englishMain returns the PDNC characters of category major and
// intermediate, with their aliases that occur in the text.
func englishMain(tb testing.TB, raw []byte, text string) []Character {
	var chars map[string]struct {
		Main     string   `json:"main_name"`
		Aliases  []string `json:"aliases"`
		Category string   `json:"category"`
	}
	if err := json.Unmarshal(raw, &chars); err != nil {
		tb.Fatal(err)
	}
	var out []Character
	for id, c := range chars {
		if c.Category != "major" && c.Category != "intermediate" {
			continue
		}
		ch := Character{ID: id, Main: c.Main}
		for _, a := range c.Aliases {
			if occurs(text, a) {
				ch.Names = append(ch.Names, a)
			}
		}
		out = append(out, ch)
	}
	sortMain(out, func(c Character) string { return chars[c.ID].Category })
	return out
}

// russianMain returns the named fictional persons in at least five
// blocks, with their surface forms that hold a capitalized name word and
// occur in the text.
func russianMain(tb testing.TB, raw []byte, text string) []Character {
	var chars map[string]struct {
		Type    string  `json:"type"`
		List    *string `json:"list"`
		Names   []string
		Surface [][]any `json:"surface_forms"`
		Blocks  int     `json:"blocks"`
	}
	if err := json.Unmarshal(raw, &chars); err != nil {
		tb.Fatal(err)
	}
	var out []Character
	for id, c := range chars {
		if c.Type != "person" || c.List == nil || *c.List != "fictional" || c.Blocks < 5 {
			continue
		}
		ch := Character{ID: id}
		for _, n := range c.Names {
			for _, w := range strings.Fields(n) {
				if upper(w) && !russianTitles[strings.ToLower(w)] && !slices.Contains(ch.Words, w) {
					ch.Words = append(ch.Words, w)
				}
			}
			if ch.Main == "" && containsUpper(n) {
				ch.Main = n
			}
		}
		if len(ch.Words) == 0 {
			continue // the narrator, a crowd: no name to find
		}
		for _, sf := range c.Surface {
			s, _ := sf[0].(string)
			if holdsName(s, ch.Words) && occurs(text, s) && !slices.Contains(ch.Names, s) {
				ch.Names = append(ch.Names, s)
			}
		}
		out = append(out, ch)
	}
	sortMain(out, func(Character) string { return "" })
	return out
}

var russianTitles = map[string]bool{"monsieur": true, "мосье": true, "мсье": true, "господин": true}

func sortMain(cs []Character, group func(Character) string) {
	sort.Slice(cs, func(i, j int) bool {
		if gi, gj := group(cs[i]), group(cs[j]); gi != gj {
			return gi < gj // major before intermediate
		}
		return cs[i].ID < cs[j].ID
	})
}

// occurs reports whether s occurs in text as whole words, case-sensitive.
func occurs(text, s string) bool {
	re := regexp.MustCompile(`(^|[^\p{L}\p{N}])` + regexp.QuoteMeta(s) + `($|[^\p{L}\p{N}])`)
	return re.MatchString(text)
}

// holdsName reports whether a surface form holds one of the name words as
// a prefix of one of its words (a case form: Симонову holds Симонов).
func holdsName(s string, words []string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		for _, n := range words {
			if upper(w) && strings.HasPrefix(w, stem(n)) {
				return true
			}
		}
	}
	return false
}

// stem cuts a final vowel (Лиза → Лиз), so that case forms share it.
func stem(w string) string {
	r, n := utf8.DecodeLastRuneInString(w)
	if strings.ContainsRune("аяоеиы", r) && utf8.RuneCountInString(w) > 3 {
		return w[:len(w)-n]
	}
	return w
}

func upper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func containsUpper(s string) bool {
	for _, w := range strings.Fields(s) {
		if upper(w) {
			return true
		}
	}
	return false
}

// Row is the measurement of one main character.
type Row struct {
	Character, Main, Entry string
	Found                  bool
	AliasHits, AliasGold   int // gold names the entry finds / gold names in the text
	AliasGood, AliasAll    int // entry names used mostly for C / entry names in the text
	TP, Positives          int // literal mention blocks found / all
	Right, Predicted       int // predicted blocks where C is present / all predicted
}

// Report is the measurement of a codex on one book.
type Report struct {
	Book string
	Rows []Row
}

// Measure measures a codex on the book.
func (b *Book) Measure(c *codex.Codex) Report {
	m := codex.NewMatcher(c.Entries)
	found := make([][]string, b.Doc.Len()) // entries mentioned per block
	for i, it := range b.Doc.Items() {
		found[i] = m.Entries(it.Text)
	}
	rep := Report{Book: b.Name}
	for _, ch := range b.Main {
		rep.Rows = append(rep.Rows, b.measure(c, m, found, ch))
	}
	return rep
}

func (b *Book) measure(c *codex.Codex, m *codex.Matcher, found [][]string, ch Character) Row {
	row := Row{Character: ch.ID, Main: ch.Main}
	e := b.entryOf(c, m, found, ch)
	if e == nil {
		return row
	}
	row.Entry = e.Name
	for _, n := range ch.Names {
		if e.HasName(n) {
			row.Found = true
		}
		row.AliasGold++
		if slices.Contains(m.Entries(n), e.ID) {
			row.AliasHits++
		}
	}
	present := func(i int) bool {
		return slices.Contains(b.Blocks[i].Persons, ch.ID) || slices.Contains(b.Blocks[i].Mentions, ch.ID)
	}
	for _, n := range e.Names() {
		one := codex.NewMatcher([]codex.Entry{{ID: "x", Name: n}})
		naming, right := 0, 0
		for i, it := range b.Doc.Items() {
			if !slices.Contains(found[i], e.ID) || len(one.Scan(it.Text)) == 0 {
				continue
			}
			naming++
			if present(i) {
				right++
			}
		}
		if naming > 0 {
			row.AliasAll++
			if 2*right >= naming {
				row.AliasGood++
			}
		}
	}
	for i, it := range b.Doc.Items() {
		pred := slices.Contains(found[i], e.ID)
		if pred {
			row.Predicted++
			if present(i) {
				row.Right++
			}
		}
		if slices.Contains(b.Blocks[i].Mentions, ch.ID) && b.literal(it.Text, ch) {
			row.Positives++
			if pred {
				row.TP++
			}
		}
	}
	return row
}

// entryOf returns the entry that stands for a character: the one found
// in most of the blocks that name the character literally (ties: the one
// naming its main name).
func (b *Book) entryOf(c *codex.Codex, m *codex.Matcher, found [][]string, ch Character) *codex.Entry {
	hits := map[string]int{}
	for i, it := range b.Doc.Items() {
		if slices.Contains(b.Blocks[i].Mentions, ch.ID) && b.literal(it.Text, ch) {
			for _, id := range found[i] {
				hits[id]++
			}
		}
	}
	main := m.Entries(ch.Main)
	best := ""
	for id, n := range hits {
		if best == "" || n > hits[best] || n == hits[best] && (slices.Contains(main, id) || id < best && !slices.Contains(main, best)) {
			best = id
		}
	}
	if best == "" && len(main) > 0 {
		best = main[0]
	}
	e, err := c.Find(best)
	if err != nil {
		return nil
	}
	return e
}

// literal reports whether a block's text holds one of the character's
// literal names standing on its own: not inside a longer run of
// capitalized words that is not one of its names. (The English gold
// finds names longest first among the gold's aliases only, so it counts
// "Bennet" in "Elizabeth Bennet" as Mrs. Bennet; a name inside a longer
// proper name is that name's.)
func (b *Book) literal(text string, ch Character) bool {
	for _, n := range ch.Names {
		re := regexp.MustCompile(`(^|[^\p{L}\p{N}])(` + regexp.QuoteMeta(n) + `)($|[^\p{L}\p{N}])`)
		for _, loc := range re.FindAllStringSubmatchIndex(text, -1) {
			start, end := loc[4], loc[5]
			run := text[runStart(text, start):runEnd(text, end)]
			if run == n || slices.Contains(ch.Names, run) {
				return true
			}
		}
	}
	return false
}

// nameWord matches a capitalized word (or a title with its full stop).
var nameWord = regexp.MustCompile(`^\p{Lu}[\p{L}'’]*\.?$`)

// runStart extends a name to the left over capitalized words joined by
// one space.
func runStart(text string, i int) int {
	for {
		j := strings.LastIndexByte(text[:i], ' ')
		if j < 0 || j != i-1 {
			return i
		}
		k := strings.LastIndexAny(text[:j], " \n\t\"“(«—-") + 1
		if !nameWord.MatchString(text[k:j]) || strings.HasSuffix(text[k:j], ".") && !titleAbbr(text[k:j]) {
			return i
		}
		i = k
	}
}

// runEnd extends a name to the right over capitalized words joined by one
// space.
func runEnd(text string, i int) int {
	for strings.HasPrefix(text[i:], " ") && !strings.HasSuffix(text[:i], ".") {
		j := i + 1
		k := j + strings.IndexFunc(text[j:], func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' })
		if k < j || !nameWord.MatchString(text[j:k]) {
			return i
		}
		i = k
	}
	return i
}

func titleAbbr(w string) bool {
	switch strings.TrimSuffix(w, ".") {
	case "Mr", "Mrs", "Ms", "Dr", "St", "Col", "Capt":
		return true
	}
	return false
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// AliasRecall, AliasPrecision, MentionRecall and MentionPrecision of a row.
func (r Row) AliasRecall() float64      { return ratio(r.AliasHits, r.AliasGold) }
func (r Row) AliasPrecision() float64   { return ratio(r.AliasGood, r.AliasAll) }
func (r Row) MentionRecall() float64    { return ratio(r.TP, r.Positives) }
func (r Row) MentionPrecision() float64 { return ratio(r.Right, r.Predicted) }

// Micro sums the rows of the given characters (all when none).
func (rep Report) Micro(ids ...string) Row {
	var t Row
	t.Found = true
	for _, r := range rep.Rows {
		if len(ids) > 0 && !slices.Contains(ids, r.Character) {
			continue
		}
		t.Found = t.Found && r.Found
		t.AliasHits += r.AliasHits
		t.AliasGold += r.AliasGold
		t.AliasGood += r.AliasGood
		t.AliasAll += r.AliasAll
		t.TP += r.TP
		t.Positives += r.Positives
		t.Right += r.Right
		t.Predicted += r.Predicted
	}
	return t
}

// Table writes the report as a Markdown table, one row per character and a
// total row (micro averages).
func (rep Report) Table(label string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s — %s\n\n", rep.Book, label)
	s.WriteString("| character | entry | found | alias R | alias P | mention R | mention P | blocks |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&s, "| %s (%s) | %s | %v | %.3f | %.3f | %.3f | %.3f | %d/%d |\n", r.Main, r.Character, r.Entry, r.Found,
			r.AliasRecall(), r.AliasPrecision(), r.MentionRecall(), r.MentionPrecision(), r.TP, r.Positives)
	}
	t := rep.Micro()
	fmt.Fprintf(&s, "| **all** | | %v | %.3f | %.3f | %.3f | %.3f | %d/%d |\n", t.Found, t.AliasRecall(), t.AliasPrecision(),
		t.MentionRecall(), t.MentionPrecision(), t.TP, t.Positives)
	return s.String()
}

// Oracle returns a copy of c regrouped the way the gold groups the main
// characters' names, as a perfect model would: each main character gets an
// entry with exactly its gold names; a name of another entry that is one
// of them (in any form) is taken from that entry, and a longer name that
// holds one of them ("Lady Catherine de Bourgh") moves to the character
// when most blocks naming it have the character present. Entries left
// without names are removed. It measures the matching alone.
func (b *Book) Oracle(c *codex.Codex) *codex.Codex {
	out := c.Clone()
	golds := make([]*codex.Matcher, len(b.Main))
	for i, ch := range b.Main {
		golds[i] = codex.NewMatcher([]codex.Entry{{ID: ch.ID, Name: ch.Main, Aliases: ch.Names}})
	}
	moved := make([][]string, len(b.Main))
	var keep []codex.Entry
	for _, e := range out.Entries {
		var names []string
		for _, n := range e.Names() {
			owner := -1
			for i, ch := range b.Main {
				if sameAsOne(n, ch.Names) || len(golds[i].Scan(n)) > 0 && b.mostlyPresent(n, ch.ID) {
					owner = i
					break
				}
			}
			if owner < 0 {
				names = append(names, n)
			} else if !sameAsOne(n, b.Main[owner].Names) {
				moved[owner] = append(moved[owner], n)
			}
		}
		if len(names) == 0 {
			continue
		}
		e.Name, e.Aliases = names[0], names[1:]
		keep = append(keep, e)
	}
	out.Entries = keep
	for i, ch := range b.Main {
		if len(ch.Names) == 0 {
			continue
		}
		_, _ = out.Add(codex.Entry{ID: "gold-" + ch.ID, Kind: codex.Character, Name: ch.Main,
			Aliases: append(slices.Clone(ch.Names), moved[i]...), Confirmed: true})
	}
	return out
}

// sameAsOne reports whether n is, in some form, one of the names.
func sameAsOne(n string, names []string) bool {
	return slices.ContainsFunc(names, func(g string) bool { return codex.SameName(n, g) })
}

// mostlyPresent reports whether most blocks naming n have the character
// present.
func (b *Book) mostlyPresent(n, id string) bool {
	m := codex.NewMatcher([]codex.Entry{{ID: "n", Name: n}})
	naming, right := 0, 0
	for i, it := range b.Doc.Items() {
		if len(m.Scan(it.Text)) == 0 {
			continue
		}
		naming++
		if slices.Contains(b.Blocks[i].Persons, id) || slices.Contains(b.Blocks[i].Mentions, id) {
			right++
		}
	}
	return naming > 0 && 2*right > naming
}

// CharacterOf returns the main character a set of names stands for, as a
// model that groups names right would say: the character one of whose
// gold names is one of the names (in any form), or whose gold name lies
// inside one of them while most blocks naming it have the character
// present; "" for none.
func (b *Book) CharacterOf(names []string) string {
	for _, ch := range b.Main {
		for _, n := range names {
			if sameAsOne(n, ch.Names) {
				return ch.ID
			}
		}
	}
	for _, ch := range b.Main {
		m := codex.NewMatcher([]codex.Entry{{ID: ch.ID, Name: ch.Main, Aliases: ch.Names}})
		for _, n := range names {
			if len(m.Scan(n)) > 0 && b.mostlyPresent(n, ch.ID) {
				return ch.ID
			}
		}
	}
	return ""
}
