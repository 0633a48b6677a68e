package eval

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// goldBlock is one line of ../shared/data/books/gold/BOOK.gold.jsonl.
type goldBlock struct {
	Index    int      `json:"index"`
	SHA1     string   `json:"text_sha1"`
	Mentions []string `json:"mentions"`
}

// goldCharacter is one entry of BOOK.characters.json (Russian: names and
// surface forms; English: aliases).
type goldCharacter struct {
	Names        []string `json:"names"`
	MainName     string   `json:"main_name"`
	Aliases      []string `json:"aliases"`
	SurfaceForms [][]any  `json:"surface_forms"`
}

func (c goldCharacter) texts() []string {
	out := append(slices.Clone(c.Names), c.Aliases...)
	if c.MainName != "" {
		out = append(out, c.MainName)
	}
	for _, f := range c.SurfaceForms {
		out = append(out, f[0].(string))
	}
	return out
}

func (c goldCharacter) words() map[string]bool {
	out := map[string]bool{}
	for _, s := range c.texts() {
		for _, sp := range textnorm.Spans(s) {
			out[s[sp.Start:sp.End]] = true
		}
	}
	return out
}

// goldBook is a shared book with its gold facts.
type goldBook struct {
	b      *Book
	blocks []goldBlock
	chars  map[string]goldCharacter
}

func loadGoldBook(t *testing.T, name string) goldBook {
	t.Helper()
	books := testbook.Books(t)
	src, ok := books[name]
	require.True(t, ok, "%s is not among the shared books", name)
	b, err := NewBook(name, src, nil, 0)
	require.NoError(t, err)
	stem := filepath.Join(testbook.Dir(), "gold", strings.TrimSuffix(name, ".md"))
	f, err := os.Open(stem + ".gold.jsonl")
	require.NoError(t, err)
	defer f.Close()
	g := goldBook{b: b}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var gb goldBlock
		require.NoError(t, json.Unmarshal(sc.Bytes(), &gb))
		g.blocks = append(g.blocks, gb)
	}
	raw, err := os.ReadFile(stem + ".characters.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &g.chars))
	return g
}

// checkAlignment proves that the gold's blocks are the book's top-level
// items, by SHA-1 of their Markdown.
func (g goldBook) checkAlignment(t *testing.T) {
	tops := g.b.doc.Tops()
	require.Len(t, tops, len(g.blocks))
	for i, sp := range tops {
		h := sha1.Sum(g.b.src[sp.Start:sp.End])
		require.Equal(t, g.blocks[i].SHA1, hex.EncodeToString(h[:]), "block %d", i)
	}
}

// character finds the one gold character a name stands for: exactly one
// character is called by it in full, and no other has it among the words
// of its names (which leaves out surnames a family shares).
func (g goldBook) character(name string) (string, goldCharacter, bool) {
	var id string
	for cid, c := range g.chars {
		switch {
		case slices.Contains(c.texts(), name):
			if id != "" {
				return "", goldCharacter{}, false
			}
			id = cid
		case c.words()[name]:
			return "", goldCharacter{}, false
		}
	}
	return id, g.chars[id], id != ""
}

// literal lists, in document order, the non-heading items of the blocks
// whose gold mentions hold the character and whose text holds one of the
// character's own words (as the gold spells them) that begins like the
// name and is at most two letters longer (a case ending, not another name:
// "Eliza" is no form of "Elizabeth"): the name's mentions as the gold
// tells them, without aite's forms.
// The English gold matches names case-sensitively, so a name in capitals
// ("MY DEAR LIZZY,") is no mention there; it is one here, as for a reader.
// A possessive ("Catherine's") is the name's.
func (g goldBook) literal(id string, c goldCharacter, name string) []*document.Item {
	rs := []rune(name)
	prefix := string(rs[:max(3, len(rs)-2)])
	words := c.words()
	var out []*document.Item
	for _, it := range g.b.doc.Items() {
		if it.Kind == document.Heading {
			continue
		}
		mentioned := slices.Contains(g.blocks[it.Top()].Mentions, id)
		for _, sp := range textnorm.Spans(it.Text) {
			w := it.Text[sp.Start:sp.End]
			capitals := allUpper(w) && utf8.RuneCountInString(w) > 1
			if capitals {
				r, n := utf8.DecodeRuneInString(w)
				w = string(r) + strings.ToLower(w[n:])
			}
			w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s") // an English possessive
			if words[w] && strings.HasPrefix(w, prefix) && utf8.RuneCountInString(w) <= len(rs)+2 && (mentioned || capitals) {
				out = append(out, it)
				break
			}
		}
	}
	return out
}

// TestGoldAgreesWithTheSharedGold generates tasks on both shared books
// with several seeds and checks every task whose names stand for one gold
// character against the gold's own facts (which blocks mention whom): the
// first, n-th and last mention, the count in a chapter, the chapter of the
// first mention, the paragraphs of two names, the item an insert follows.
func TestGoldAgreesWithTheSharedGold(t *testing.T) {
	for _, name := range []string{"zapiski_iz_podpolia.md", "PrideAndPrejudice.md"} {
		t.Run(name, func(t *testing.T) {
			g := loadGoldBook(t, name)
			g.checkAlignment(t)
			checked := map[Family]int{}
			for seed := uint64(1); seed <= 6; seed++ {
				for _, task := range plan(t, g.b, Options{Seed: seed, PerFamily: 5, RelayPairs: 1}).Tasks {
					if g.check(t, task) {
						checked[task.Family]++
					}
				}
			}
			t.Logf("%s: tasks checked against the gold: %v", name, checked)
			for _, f := range []Family{First, Nth, Last, Count, Chapter, Insert} {
				require.GreaterOrEqual(t, checked[f], 5, "too few %s tasks overlap the gold for the check to mean anything", f)
			}
		})
	}
}

// check compares one task with the gold; false when its names do not
// stand for one gold character.
func (g goldBook) check(t *testing.T, task Task) bool {
	p := task.Params
	id, c, ok := g.character(p.Name)
	if !ok {
		return false
	}
	lit := g.literal(id, c, p.Name)
	require.NotEmpty(t, lit, "%s: no gold block mentions %s by name", task.ID, p.Name)
	switch task.Family {
	case First:
		require.Equal(t, pointers(lit[:1]), task.Gold.Pointers, task.ID)
	case Nth:
		require.Equal(t, pointers(lit[p.N-1:p.N]), task.Gold.Pointers, task.ID)
	case Last:
		require.Equal(t, pointers(lit[len(lit)-1:]), task.Gold.Pointers, task.ID)
	case Insert:
		require.Equal(t, lit[p.N-1].Pointer().String(), task.Gold.Edit.Pointer, task.ID)
	case Count:
		h, _ := g.b.resolve(p.Chapter)
		ch := section{heading: h, end: g.b.doc.SectionEnd(h.Index())}
		require.Equal(t, countIn(lit, ch), *task.Gold.Count, task.ID)
	case Chapter:
		ch, _ := g.b.chapterOf(lit[0].Index())
		require.Equal(t, []string{ch.heading.Pointer().String()}, task.Gold.Pointers, task.ID)
	case Collect, Walk:
		oid, oc, ok := g.character(p.Other)
		if !ok {
			return false
		}
		both := intersectItems(lit, g.literal(oid, oc, p.Other))
		want := pointers(both)
		switch p.Mode {
		case "first":
			want = want[:1]
		case "nth":
			want = want[p.N-1 : p.N]
		case "last":
			want = want[len(want)-1:]
		}
		require.Equal(t, want, task.Gold.Pointers, task.ID)
	default:
		return false
	}
	return true
}

func intersectItems(a, b []*document.Item) []*document.Item {
	var out []*document.Item
	for _, it := range a {
		if slices.Contains(b, it) {
			out = append(out, it)
		}
	}
	return out
}
