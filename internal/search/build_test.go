package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// reference is the straightforward index of a document: every item
// analysed on its own with textnorm.Terms, postings appended in item ID
// order.
type reference struct {
	post   map[string][]posting
	dls    map[int]int32
	total  int64
	nItems int
}

func referenceBuild(d *document.Document) reference {
	items := slices.Clone(d.Items())
	slices.SortFunc(items, func(a, b *document.Item) int { return a.ID - b.ID })
	r := reference{post: map[string][]posting{}, dls: map[int]int32{}, nItems: len(items)}
	for _, it := range items {
		terms := textnorm.Terms(it.Text)
		counts := map[string]int32{}
		for _, s := range terms {
			counts[s]++
		}
		for s, n := range counts {
			r.post[s] = append(r.post[s], posting{int32(it.ID), n})
		}
		r.dls[it.ID] = int32(len(terms))
		r.total += int64(len(terms))
	}
	return r
}

// requireSameAsReference checks every part of x against the reference
// build of d and against the incremental path (lexicon.tfs, as Update
// analyses an item). built says x comes straight from a build, whose
// postings lists have no spare capacity.
func requireSameAsReference(t *testing.T, d *document.Document, x *Index, built bool) {
	t.Helper()
	ref := referenceBuild(d)
	require.Equal(t, ref.post, dump(x))
	require.Equal(t, ref.nItems, x.nItems)
	require.Equal(t, ref.total, x.total)
	require.Equal(t, d.Version(), x.version)
	require.Same(t, d, x.doc)
	live := 0
	for id, e := range x.items {
		if !e.live {
			require.Zero(t, e, "item %d", id)
			continue
		}
		live++
		it := d.ByID(id)
		require.NotNil(t, it, "item %d", id)
		require.Equal(t, it.Text, e.text, "item %d", id)
		require.Equal(t, ref.dls[id], e.dl, "item %d", id)
	}
	require.Equal(t, ref.nItems, live)

	// the lexicon: one term per stem, every surface word mapped to the
	// term of its stem, scratch space for every term
	require.Len(t, x.post, len(x.lex.stems))
	require.Len(t, x.lex.counts, len(x.lex.stems))
	require.Len(t, x.lex.terms, len(x.lex.stems))
	require.Empty(t, x.lex.touched)
	for i, s := range x.lex.stems {
		if x.lex.terms[s] != termID(i) {
			t.Fatalf("stem %q: term %d, want %d", s, x.lex.terms[s], i)
		}
		if built && len(x.post[i]) != cap(x.post[i]) {
			t.Fatalf("postings of %q have slack", s)
		}
	}
	for w, term := range x.lex.words {
		if stem := textnorm.Stem(w); x.lex.stems[term] != stem {
			t.Fatalf("word %q: stem %q, want %q", w, x.lex.stems[term], stem)
		}
	}
	fresh := newLexicon()
	for _, it := range d.Items() {
		for _, sp := range textnorm.Spans(it.Text) {
			if w := it.Text[sp.Start:sp.End]; !hasWord(x, w) { // its stem is checked above
				t.Fatalf("word %q of item %d not in the lexicon", w, it.ID)
			}
		}
		// the incremental path agrees item by item
		tfs, dl := fresh.tfs(it.Text)
		if x.items[it.ID].dl != dl {
			t.Fatalf("item %d: length %d, incremental %d", it.ID, x.items[it.ID].dl, dl)
		}
		for _, tf := range tfs {
			stem := fresh.stems[tf.term]
			term, ok := x.lex.term(stem)
			if !ok {
				t.Fatalf("item %d: stem %q not in the index", it.ID, stem)
			}
			post := x.postingsOf(term) // through the encoding for a term no edit touched
			i, found := findPosting(post, int32(it.ID))
			if !found || post[i].tf != tf.tf {
				t.Fatalf("item %d: stem %q: posting %v, incremental tf %d", it.ID, stem, post, tf.tf)
			}
		}
	}
}

func hasWord(x *Index, w string) bool {
	_, ok := x.lex.words[w]
	return ok
}

func TestBuildEqualsReferenceOnBooks(t *testing.T) {
	books := testbook.Books(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range books {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			d := markdown.Parse(books[name])
			var plain []byte
			for _, workers := range []int{1, 2, 3} {
				x := &Index{}
				x.rebuildWith(d, workers)
				requireSameAsReference(t, d, x, true)
				// the term IDs of a parallel build depend on which worker
				// took which run; its encoding may not
				enc, err := x.Encode()
				require.NoError(t, err)
				if workers == 1 {
					plain = enc
				} else {
					require.Equal(t, plain, enc, "%d workers", workers)
				}
			}
			requireSameAsReference(t, d, Build(d), true)
		})
	}
}

// randomWords is a vocabulary for random documents: Russian and English
// in several cases, ё, apostrophes, digits, other and mixed scripts,
// words the stemmers' fast paths leave to the library.
var randomWords = strings.Fields(`Звёздочкин звездочкина ЗВЁЗДОЧКИНЫМ часы часов башне
	башня жираф жирафа сказал сказала сказавшись злейший ннн ь Ёлка ёлки ещё
	д'Артаньян don't DON'T Darcy's darcy generously running runs ran sky skies
	Elizabeth ELIZABETH’S proceeded yyy ying 1990 2nd café naïve λόγος Zвёздочкин
	iPhoneы Ђура і ў а я и the a I o'clock universally acknowledged truth`)

// randomDoc returns a Markdown book of random blocks of random words.
func randomDoc(rng *rand.Rand, words []string) string {
	var b strings.Builder
	for range 1 + rng.IntN(80) {
		var p []string
		for range 1 + rng.IntN(30) {
			w := words[rng.IntN(len(words))]
			switch rng.IntN(10) {
			case 0:
				w += ","
			case 1:
				w = "«" + w + "»"
			case 2:
				w += " —"
			}
			p = append(p, w)
		}
		text := strings.Join(p, " ")
		switch rng.IntN(8) {
		case 0:
			fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", 1+rng.IntN(3)), text)
		case 1:
			fmt.Fprintf(&b, "- %s\n- %s\n\n", text, words[rng.IntN(len(words))])
		case 2:
			fmt.Fprintf(&b, "> %s\n\n", text)
		case 3:
			fmt.Fprintf(&b, "```\n%s\n```\n\n", text)
		default:
			fmt.Fprintf(&b, "%s.\n\n", text)
		}
	}
	return b.String()
}

func TestBuildEqualsReferenceOnRandomDocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	words := append(slices.Clone(randomWords), vocabulary(markdown.Parse(example(t)))...)
	for i := range 60 {
		d := parse(randomDoc(rng, words))
		for j := range rng.IntN(4) { // edits: IDs out of document order, gaps
			if _, ok := randomEdit(d, rng, words); !ok && j > 10 {
				break
			}
		}
		workers := 1 + i%4
		x := &Index{}
		x.rebuildWith(d, workers)
		requireSameAsReference(t, d, x, true)
		// the index keeps working incrementally after a parallel build
		if ids, ok := randomEdit(d, rng, words); ok {
			x.Update(d, ids...)
			requireSameAsReference(t, d, x, false)
		}
	}
	for _, src := range []string{"", "# \n", "---\n", "Ё.\n", "```\n```\n"} {
		d := parse(src)
		for _, workers := range []int{1, 3} {
			x := &Index{}
			x.rebuildWith(d, workers)
			requireSameAsReference(t, d, x, true)
		}
	}
}

// TestCutMakesBalancedRunsInOrder checks that the runs a build hands its
// workers cover the items once, in order, in about equal sizes in bytes.
func TestCutMakesBalancedRunsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 3, 7, 100, 5000} {
		items := make([]textItem, n)
		size := 0
		for i := range items {
			items[i] = textItem{i + 1, strings.Repeat("x", rng.IntN(300))}
			size += len(items[i].text)
		}
		for _, workers := range []int{1, 2, 3} {
			chunks := cut(items, size, workers)
			require.LessOrEqual(t, len(chunks), max(1, workers*chunksPerWorker))
			var got []textItem
			for _, c := range chunks {
				got = append(got, c.items...)
				if n == 5000 && workers > 1 {
					bytes := 0
					for _, it := range c.items {
						bytes += len(it.text)
					}
					want := size / len(chunks)
					require.InDelta(t, want, bytes, 300, "a run of %d bytes, %d wanted", bytes, want)
				}
			}
			require.Len(t, got, n)
			if n > 0 {
				require.Equal(t, items, got)
			}
		}
	}
}
