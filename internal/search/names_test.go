package search

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// The name-form targets of issue 13, over the names of both shared books.
const (
	targetMacroRecall    = 0.99
	targetMinRecall      = 0.95
	targetMacroPrecision = 0.98
)

// nameCase is one name of testdata/names.json.
type nameCase struct {
	Name      string   `json:"name"`
	Character string   `json:"character"`
	Oblique   string   `json:"oblique"`
	Forms     []string `json:"forms"`
}

// goldBlock is one line of BOOK.gold.jsonl.
type goldBlock struct {
	Index    int      `json:"index"`
	SHA1     string   `json:"text_sha1"`
	Mentions []string `json:"mentions"`
	Persons  []string `json:"persons"`
}

func loadNames(t *testing.T) map[string][]nameCase {
	raw, err := os.ReadFile(filepath.Join("testdata", "names.json"))
	require.NoError(t, err)
	var all map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &all))
	out := map[string][]nameCase{}
	for book, v := range all {
		if strings.HasPrefix(book, "_") {
			continue
		}
		var cs []nameCase
		require.NoError(t, json.Unmarshal(v, &cs))
		out[book] = cs
	}
	return out
}

func loadGold(t *testing.T, book string) []goldBlock {
	f, err := os.Open(filepath.Join(testbook.Dir(), "gold", strings.TrimSuffix(book, ".md")+".gold.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var out []goldBlock
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var g goldBlock
		require.NoError(t, json.Unmarshal(sc.Bytes(), &g))
		out = append(out, g)
	}
	return out
}

// surfaceWords returns the words of a character's gold names and surface
// forms (Russian: surface_forms; English: aliases).
func surfaceWords(t *testing.T, book, character string) map[string]bool {
	raw, err := os.ReadFile(filepath.Join(testbook.Dir(), "gold", strings.TrimSuffix(book, ".md")+".characters.json"))
	require.NoError(t, err)
	var chars map[string]struct {
		SurfaceForms [][]any  `json:"surface_forms"`
		Aliases      []string `json:"aliases"`
	}
	require.NoError(t, json.Unmarshal(raw, &chars))
	c, ok := chars[character]
	require.True(t, ok, "%s: no character %q in the gold", book, character)
	out := map[string]bool{}
	texts := slices.Clone(c.Aliases)
	for _, f := range c.SurfaceForms {
		texts = append(texts, f[0].(string))
	}
	for _, s := range texts {
		for _, sp := range textnorm.Spans(s) {
			out[s[sp.Start:sp.End]] = true
		}
	}
	return out
}

// holds reports whether text has one of the forms as a whole word,
// spelled exactly.
func holds(text string, forms map[string]bool) bool {
	for _, sp := range textnorm.Spans(text) {
		if forms[text[sp.Start:sp.End]] {
			return true
		}
	}
	return false
}

// nameRow is one line of the name-form table.
type nameRow struct {
	book, name, query string
	relevant, found   int
	recall, precision float64
	inGold            int
}

// TestNameForms measures, on both shared books, how well a search by a
// name's dictionary form and by an oblique form finds the items that
// mention the name in any form (the forms of testdata/names.json, checked
// against the gold), and fails below the targets. It prints the table.
func TestNameForms(t *testing.T) {
	books := testbook.Books(t)
	names := loadNames(t)
	var rows []nameRow
	for _, book := range []string{"zapiski_iz_podpolia.md", "PrideAndPrejudice.md"} {
		src, ok := books[book]
		require.True(t, ok, book)
		d := markdown.Parse(src)
		gold := loadGold(t, book)
		checkGoldAlignment(t, book, d, gold)
		x := Build(d)
		all := map[string]bool{}
		for _, nc := range names[book] {
			for _, f := range nc.Forms {
				all[f] = true
			}
		}
		for _, nc := range names[book] {
			forms := map[string]bool{}
			for _, f := range nc.Forms {
				forms[f] = true
			}
			checkForms(t, book, nc, src, all)
			relevant := map[int]bool{}
			inGold := 0
			for i, it := range d.Items() {
				if holds(it.Text, forms) {
					relevant[it.ID] = true
					if i < len(gold) && slices.Contains(append(gold[i].Mentions, gold[i].Persons...), nc.Character) {
						inGold++
					}
				}
			}
			require.NotEmpty(t, relevant, "%s: %s occurs nowhere", book, nc.Name)
			for _, q := range []string{nc.Name, nc.Oblique} {
				got := x.ItemsMatching([]string{q})
				hit := 0
				for _, id := range got {
					if relevant[id] {
						hit++
					}
				}
				r := nameRow{book: book, name: nc.Name, query: q, relevant: len(relevant), found: len(got),
					recall: float64(hit) / float64(len(relevant)), precision: 1, inGold: inGold}
				if len(got) > 0 {
					r.precision = float64(hit) / float64(len(got))
				}
				rows = append(rows, r)
			}
		}
	}
	reportNames(t, rows)
}

// checkGoldAlignment checks that the gold's blocks are the book's items,
// one for one (the gold is keyed by block index).
func checkGoldAlignment(t *testing.T, book string, d *document.Document, gold []goldBlock) {
	require.Equal(t, len(gold), d.Len(), "%s: gold blocks and items", book)
	for i, it := range d.Items() {
		h := sha1.Sum([]byte(d.Markdown(it)))
		require.Equal(t, gold[i].SHA1, hex.EncodeToString(h[:]), "%s: item %s is not gold block %d", book, it.Pointer(), i)
	}
}

// checkForms keeps the fixture honest: every form occurs in the book as a
// word, and every word of the character's gold names and surface forms that
// begins like the name is a form of this name or of another name of the
// book (Антон, Антоныч and Антонович are three names).
func checkForms(t *testing.T, book string, nc nameCase, src []byte, all map[string]bool) {
	words := map[string]bool{}
	for _, sp := range textnorm.Spans(string(src)) {
		words[string(src[sp.Start:sp.End])] = true
	}
	for _, f := range nc.Forms {
		require.True(t, words[f], "%s: the form %q of %s is not in the book", book, f, nc.Name)
	}
	name := []rune(textnorm.Fold(nc.Name))
	head := string(name[:min(len(name), 4)])
	for w := range surfaceWords(t, book, nc.Character) {
		if strings.HasPrefix(textnorm.Fold(w), head) && words[w] && !all[w] {
			t.Errorf("%s: the gold spells %s as %q, missing from the fixture's forms", book, nc.Name, w)
		}
	}
}

func reportNames(t *testing.T, rows []nameRow) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-24s %-14s %-14s %8s %6s %6s %7s %9s\n", "book", "name", "query", "relevant", "inGold", "found", "recall", "precision")
	var sumR, sumP float64
	minR, minP := 1.0, 1.0
	minRName, minPName := "", ""
	for _, r := range rows {
		fmt.Fprintf(&b, "%-24s %-14s %-14s %8d %6d %6d %7.3f %9.3f\n", r.book, r.name, r.query, r.relevant, r.inGold, r.found, r.recall, r.precision)
		sumR += r.recall
		sumP += r.precision
		if r.recall < minR {
			minR, minRName = r.recall, r.name+" ("+r.query+")"
		}
		if r.precision < minP {
			minP, minPName = r.precision, r.name+" ("+r.query+")"
		}
	}
	n := float64(len(rows))
	macroR, macroP := sumR/n, sumP/n
	fmt.Fprintf(&b, "%d searches: macro recall %.4f (min %.3f %s), macro precision %.4f (min %.3f %s)\n",
		len(rows), macroR, minR, minRName, macroP, minP, minPName)
	t.Log(b.String())
	sort.Slice(rows, func(i, j int) bool { return rows[i].recall < rows[j].recall })
	if macroR < targetMacroRecall {
		t.Errorf("macro recall %.4f is below %.2f", macroR, targetMacroRecall)
	}
	for _, r := range rows {
		if r.recall < targetMinRecall {
			t.Errorf("%s: recall of %s searched as %q is %.3f, below %.2f", r.book, r.name, r.query, r.recall, targetMinRecall)
		}
	}
	if macroP < targetMacroPrecision {
		t.Errorf("macro precision %.4f is below %.2f", macroP, targetMacroPrecision)
	}
}
