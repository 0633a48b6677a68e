package search

import (
	"cmp"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// example reads the sample book of the repository.
func example(t testing.TB) []byte {
	t.Helper()
	src, err := os.ReadFile("../../examples/zvezdochkin.md")
	require.NoError(t, err)
	return src
}

// parse parses a Markdown source.
func parse(src string) *document.Document { return markdown.Parse([]byte(src)) }

// labels returns the labels of results.
func labels(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Pointer.Label
	}
	return out
}

// dump returns the postings of an index by stem, leaving out empty lists.
func dump(x *Index) map[string][]posting {
	out := map[string][]posting{}
	for t := range x.post { // through the encoding for a term no edit touched
		if p := x.postingsOf(termID(t)); len(p) > 0 {
			out[x.lex.stems[t]] = slices.Clone(p)
		}
	}
	return out
}

// bruteMatching filters the items of d with textnorm.NewMatcher.
func bruteMatching(d *document.Document, keywords []string) []int {
	var ms []*textnorm.Matcher
	for _, k := range keywords {
		ms = append(ms, textnorm.NewMatcher(k))
	}
	var out []int
	for _, it := range d.Items() {
		if slices.ContainsFunc(ms, func(m *textnorm.Matcher) bool { return m.Match(it.Text) }) {
			out = append(out, it.ID)
		}
	}
	slices.Sort(out)
	return out
}

// scored is an item with a reference BM25 score.
type scored struct {
	it    *document.Item
	score float64
}

// bruteBM25 scores every item of d for query straight from the BM25
// formula, tokenizing every item with textnorm.Terms, best first.
func bruteBM25(d *document.Document, query string) []scored {
	return newBrute(d).rank(query)
}

// brute is a document tokenized for bruteBM25.
type brute struct {
	d     *document.Document
	tfs   []map[string]int
	dls   []int
	df    map[string]int
	avgdl float64
}

func newBrute(d *document.Document) *brute {
	b := &brute{d: d, tfs: make([]map[string]int, d.Len()), dls: make([]int, d.Len()), df: map[string]int{}}
	total := 0
	for i, it := range d.Items() {
		terms := textnorm.Terms(it.Text)
		total += len(terms)
		b.dls[i] = len(terms)
		b.tfs[i] = map[string]int{}
		for _, s := range terms {
			if b.tfs[i][s] == 0 {
				b.df[s]++
			}
			b.tfs[i][s]++
		}
	}
	b.avgdl = float64(total) / float64(d.Len())
	return b
}

func (b *brute) rank(query string) []scored {
	stems := distinct(textnorm.Terms(query))
	n := float64(b.d.Len())
	var out []scored
	for i, it := range b.d.Items() {
		score := 0.0
		for _, s := range stems {
			if tf := float64(b.tfs[i][s]); tf > 0 {
				df := float64(b.df[s])
				idf := math.Log(1 + (n-df+0.5)/(df+0.5))
				score += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(b.dls[i])/b.avgdl))
			}
		}
		if score > 0 {
			out = append(out, scored{it, score})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	return out
}

// requireSameRanking checks Ranked results against the reference scores:
// the same items in the same order, scores within 1e-9.
func requireSameRanking(t *testing.T, want []scored, got []Result, limit int) {
	t.Helper()
	want = want[:min(len(want), limit)]
	require.Len(t, got, len(want))
	for i := range want {
		require.InDelta(t, want[i].score, got[i].Score, 1e-9, "rank %d", i)
		require.Equal(t, want[i].it.ID, got[i].ID, "rank %d: %s vs %s", i, want[i].it.Text, got[i].Snippet)
	}
}

// toSpans converts byte ranges to textnorm spans.
func toSpans(rs ...[2]int) []textnorm.Span {
	out := make([]textnorm.Span, len(rs))
	for i, r := range rs {
		out[i] = textnorm.Span{Start: r[0], End: r[1]}
	}
	return out
}
