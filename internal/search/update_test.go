package search

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/textnorm"
)

var updateQueries = []string{"Звёздочкин", "часы на башне", "Варя козу", "ещё", "и"}

// requireSameAsFresh checks that x gives exactly what a fresh Build of d
// gives: postings, statistics, keyword matches and ranked scores.
func requireSameAsFresh(t *testing.T, d *document.Document, x *Index) {
	t.Helper()
	fresh := Build(d)
	require.Equal(t, d.Version(), x.Version())
	require.Equal(t, dump(fresh), dump(x))
	require.Equal(t, fresh.nItems, x.nItems)
	require.Equal(t, fresh.total, x.total)
	for _, kws := range keywordLists {
		require.Equal(t, fresh.ItemsMatching(kws), x.ItemsMatching(kws), "%q", kws)
	}
	for _, q := range updateQueries {
		want, err := fresh.Ranked(d, q, Options{Limit: MaxLimit, IncludeHeadings: true})
		require.NoError(t, err)
		got, err := x.Ranked(d, q, Options{Limit: MaxLimit, IncludeHeadings: true})
		require.NoError(t, err)
		require.Len(t, got, len(want), q)
		for i := range want {
			require.Equal(t, want[i].ID, got[i].ID, q)
			require.InDelta(t, want[i].Score, got[i].Score, 1e-9, q)
		}
	}
}

func TestUpdateEdits(t *testing.T) {
	d := parse(rankedDoc)
	x := Build(d)
	r, err := d.ReplaceText("1.p2", "Часы ушли, пришёл жираф.")
	require.NoError(t, err)
	x.Update(d, r.Pointer.ID)
	requireSameAsFresh(t, d, x)
	require.Len(t, x.ItemsMatching([]string{"жирафа"}), 1)

	r, err = d.InsertAfter("1.p3", "Второй жираф и кот.")
	require.NoError(t, err)
	x.Update(d, r.Pointer.ID, r.Pointer.ID) // a repeated ID is harmless
	requireSameAsFresh(t, d, x)
	require.Len(t, x.ItemsMatching([]string{"жираф"}), 2)

	r, err = d.Delete("1.p2")
	require.NoError(t, err)
	x.Update(d, r.Pointer.ID, 999, -1) // unknown IDs are ignored
	requireSameAsFresh(t, d, x)
	require.Len(t, x.ItemsMatching([]string{"жираф"}), 1)

	_, err = d.ReplaceText("1", "Часы, фонарь и жираф")
	require.NoError(t, err)
	x.Update(d, 1)
	requireSameAsFresh(t, d, x)

	other := parse("# Другая книга\n\nПро жирафа.\n")
	x.Update(other, 3) // another document: rebuilt
	requireSameAsFresh(t, other, x)
	var zero Index
	zero.Update(d)
	requireSameAsFresh(t, d, &zero)
}

// vocabulary returns the words of a document's items.
func vocabulary(d *document.Document) []string {
	var words []string
	for _, it := range d.Items() {
		for _, sp := range textnorm.Spans(it.Text) {
			words = append(words, it.Text[sp.Start:sp.End])
		}
	}
	return words
}

// randomText returns 1..40 random words, with some punctuation and ё.
func randomText(rng *rand.Rand, words []string) string {
	n := 1 + rng.IntN(40)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[rng.IntN(len(words))]
		switch rng.IntN(8) {
		case 0:
			parts[i] += ","
		case 1:
			parts[i] = "ещё " + parts[i]
		}
	}
	return strings.Join(parts, " ") + "."
}

// randomEdit applies one random operation and returns the IDs it touched;
// ok is false if the document refused it.
func randomEdit(d *document.Document, rng *rand.Rand, words []string) (ids []int, ok bool) {
	it := d.At(rng.IntN(d.Len()))
	ptr := it.Pointer().String()
	var r document.EditResult
	var err error
	switch op := rng.IntN(20); {
	case op < 8:
		r, err = d.ReplaceText(ptr, randomText(rng, words))
	case op < 12:
		r, err = d.InsertAfter(ptr, randomText(rng, words))
	case op < 14:
		r, err = d.InsertBefore(ptr, randomText(rng, words))
	case op < 18:
		r, err = d.Delete(ptr)
	default:
		e, err := d.Undo()
		return []int{e.ItemID}, err == nil
	}
	return []int{r.Target.ID, r.Pointer.ID}, err == nil
}

func TestUpdateRandomEdits(t *testing.T) {
	d := markdown.Parse(example(t))
	x := Build(d)
	words := vocabulary(d)
	rng := rand.New(rand.NewPCG(2024, 8))
	applied, refused := 0, 0
	for applied < 200 {
		ids, ok := randomEdit(d, rng, words)
		if !ok {
			refused++
			require.Less(t, refused, 1000, "too many refused edits")
			continue
		}
		applied++
		x.Update(d, ids...)
		if applied%20 == 0 {
			requireSameAsFresh(t, d, x)
		}
	}
	t.Logf("200 edits applied, %d refused; %d items", refused, d.Len())
}

func TestResyncAfterRandomEdits(t *testing.T) {
	d := markdown.Parse(example(t))
	x := Build(d)
	words := vocabulary(d)
	rng := rand.New(rand.NewPCG(7, 7))
	for round := 0; round < 5; round++ {
		requireResync(t, d, x, rng, words)
	}
}

// requireResync makes 10 edits the index is not told of, then checks that
// a query brings it up to date: exactly what a fresh Build gives.
func requireResync(t *testing.T, d *document.Document, x *Index, rng *rand.Rand, words []string) {
	t.Helper()
	for applied := 0; applied < 10; {
		if _, ok := randomEdit(d, rng, words); ok {
			applied++
		}
	}
	_, err := x.Exact(d, "часы", Options{}) // stale: brought up to date
	require.NoError(t, err)
	requireSameAsFresh(t, d, x)
}

func TestConcurrentReads(t *testing.T) {
	d := markdown.Parse(example(t))
	x := Build(d)
	_, err := d.ReplaceText("1.p1", "Звёздочкин, часы и коза.")
	require.NoError(t, err) // stale: the first reader brings it up to date
	want, err := Build(d).Ranked(d, "Звёздочкин часы", Options{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 20; i++ {
				got, err := x.Ranked(d, "Звёздочкин часы", Options{})
				require.NoError(t, err)
				require.Equal(t, want, got)
				_, err = x.Exact(d, "на башне", Options{})
				require.NoError(t, err)
				require.NotEmpty(t, x.ItemsMatching([]string{"Варя"}))
				require.Equal(t, d.Version(), x.Version())
			}
		})
	}
	wg.Wait()
}

func TestParallelBuildEqualsSerial(t *testing.T) {
	d := markdown.Parse(example(t))
	_, err := d.InsertBefore("1.p1", "Звёздочкин: новый абзац с новым ID в начале книги.")
	require.NoError(t, err) // IDs no longer in document order
	serial := &Index{}
	serial.rebuildWith(d, 1)
	for _, workers := range []int{2, 3, 7} {
		x := &Index{}
		x.rebuildWith(d, workers)
		require.Equal(t, dump(serial), dump(x))
		require.Equal(t, serial.nItems, x.nItems)
		require.Equal(t, serial.total, x.total)
		require.Len(t, x.lex.counts, len(x.lex.stems))
		requireSameAsFresh(t, d, x)
		for w, st := range serial.lex.words {
			require.Equal(t, serial.lex.stems[st], x.lex.stems[x.lex.words[w]], w)
		}
		r, err := d.ReplaceText("1.p2", "Совсем новые слова: жираф, зебра и Звёздочкин.")
		require.NoError(t, err)
		x.Update(d, r.Pointer.ID)
		requireSameAsFresh(t, d, x)
		serial.rebuildWith(d, 1)
	}
}

// The same with every postings list long: changes go to tombstones and
// additions, merged into the lists now and then, and the index is still
// exactly a fresh Build's, through updates and a resync.
func TestUpdateRandomEditsPending(t *testing.T) {
	defer func(l, m int) { longList, maxPending = l, m }(longList, maxPending)
	longList, maxPending = 2, 3
	d := markdown.Parse(example(t))
	x := Build(d)
	words := vocabulary(d)
	rng := rand.New(rand.NewPCG(21, 22))
	for applied := 0; applied < 200; {
		ids, ok := randomEdit(d, rng, words)
		if !ok {
			continue
		}
		applied++
		x.Update(d, ids...)
		if applied%20 == 0 {
			require.NotEmpty(t, x.pend, "some changes are pending")
			requireSameAsFresh(t, d, x)
		}
	}
	requireResync(t, d, x, rng, words)
}
