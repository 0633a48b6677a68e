package search

import (
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// minChunk is the least number of items worth a worker of its own.
const minChunk = 512

// chunksPerWorker is how many runs of items each worker of a build gets on
// average: more runs than workers let a worker that finishes early (its
// runs shorter, or its core less shared) take over runs another would
// have had to do.
const chunksPerWorker = 4

// minStemRun is the least number of distinct words worth stemming in
// parallel.
const minStemRun = 1024

// textItem is an item as the build reads it.
type textItem struct {
	id   int
	text string
}

// worker is what one goroutine of a build keeps from run to run: the
// words of the runs it scanned, interned in a table of its own, and then
// the map from its word IDs to terms.
type worker struct {
	words wordTable
	local []termID // word ID → term
}

// chunk is a run of items (in ID order) analysed by one worker.
type chunk struct {
	items []textItem

	// scan: the words of the items as IDs of the word table of w, the
	// worker that scanned the chunk
	w    *worker
	toks []int32 // word IDs, item after item
	ends []int32 // end of each item's words in toks

	// count: how many of the chunk's items hold each term, and their
	// lengths; then the postings
	dls   []int32 // each item's length (number of words)
	df    []int32 // term → number of the chunk's items that hold it
	total int64   // sum of the items' lengths
}

// rebuild indexes d from scratch (the mutex aside, every field is reset).
// The caller holds the write lock or owns x.
//
// The items are cut in runs of about equal size in bytes, more runs than
// workers, which parallel workers take in turn, in phases:
//
//  1. scan: each worker splits the items of its runs into words
//     (textnorm.NextWord) and interns each word by its bytes in a table
//     of its own, recording the word IDs;
//  2. the workers' tables are merged (most words are in every run) and
//     each distinct surface word is stemmed once (textnorm.Stem), the
//     words split between the workers, then the stems are interned as
//     terms; the lexicon's maps (word → term, stem → term), which only
//     searches and updates read, are filled meanwhile, beside phases 3
//     and 4;
//  3. count: each run counts, per term, the items that hold it;
//  4. fill: the postings are sized exactly (one backing array, no append
//     slack) and each run counts the term frequencies of its items and
//     writes their postings, in ID order, at offsets known from the
//     counts of the runs before it (the frequencies are not kept between
//     the two: they would take more memory than the postings).
//
// Splitting and word lookups dominate the cost; stemming, once the
// dominant part, is small since each distinct word is stemmed once (and
// textnorm's stemmer fast paths). The result is exactly what analysing
// the items one by one gives (build_test.go checks it against a
// straightforward reference build, with any number of workers).
func (x *Index) rebuild(d *document.Document) {
	x.rebuildWith(d, max(1, min(runtime.GOMAXPROCS(0), d.Len()/minChunk)))
}

// rebuildWith is rebuild with a given number of workers.
func (x *Index) rebuildWith(d *document.Document, workers int) {
	items := make([]textItem, 0, d.Len())
	size := 0
	d.EachText(func(id int, text string) {
		items = append(items, textItem{id, text})
		size += len(text)
	})
	if !slices.IsSortedFunc(items, byID) {
		slices.SortFunc(items, byID)
	}
	maxID := 0
	if n := len(items); n > 0 {
		maxID = items[n-1].id
	}
	x.doc, x.version, x.fz, x.thawed, x.own = d, d.Version(), nil, nil, nil
	x.post, x.items, x.nItems, x.total, x.pend = nil, make([]entry, maxID+1), 0, 0, map[termID]*pending{}

	chunks := cut(items, size, workers)
	ws := make([]worker, min(workers, len(chunks)))
	seed := maphash.MakeSeed()
	for i := range ws {
		ws[i].words.init(seed, vocabGuess(size))
	}
	parallel(chunks, ws, func(w *worker, c *chunk) { c.scan(w) })
	var maps sync.WaitGroup
	x.terms(ws, &maps)
	parallel(chunks, ws, func(_ *worker, c *chunk) { c.count(len(x.lex.stems)) })
	x.fill(chunks, ws)
	maps.Wait()
}

func byID(a, b textItem) int { return a.id - b.id }

// vocabGuess guesses how many distinct words a book of size bytes has, to
// size the word tables: growing one costs more than a few spare slots (a
// 5.6 MB novel has 15,500; a table grows past what this says).
func vocabGuess(size int) int {
	return min(max(size/512, 1024), 16384)
}

// cut cuts items (size bytes of text in all) in runs of about equal size
// for the given number of workers: chunksPerWorker runs each, or one run
// for one worker.
func cut(items []textItem, size, workers int) []chunk {
	n := 1
	if workers > 1 {
		n = workers * chunksPerWorker
	}
	chunks := make([]chunk, 0, n)
	start, done := 0, 0 // first item of the run; bytes of the runs before
	for i, it := range items {
		done += len(it.text)
		if len(chunks) < n-1 && done*n >= (len(chunks)+1)*size {
			chunks = append(chunks, chunk{items: items[start : i+1]})
			start = i + 1
		}
	}
	return append(chunks, chunk{items: items[start:]})
}

// parallel runs f on every chunk, one goroutine per worker, each taking
// the next chunk not yet taken until none is left.
func parallel(chunks []chunk, ws []worker, f func(*worker, *chunk)) {
	if len(ws) == 1 {
		for i := range chunks {
			f(&ws[0], &chunks[i])
		}
		return
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for k := range ws {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(chunks); i = int(next.Add(1)) - 1 {
				f(&ws[k], &chunks[i])
			}
		})
	}
	wg.Wait()
}

// scan splits the chunk's items into words, interning them in w's table.
func (c *chunk) scan(w *worker) {
	size := 0
	for _, it := range c.items {
		size += len(it.text)
	}
	c.w = w
	c.toks = make([]int32, 0, size/5+1) // about one word per 6 bytes
	c.ends = make([]int32, len(c.items))
	for i, it := range c.items {
		text := it.text
		for j := 0; ; {
			start, end, ok := textnorm.NextWord(text, j)
			if !ok {
				break
			}
			c.toks = append(c.toks, w.words.id(text, start, end))
			j = end
		}
		c.ends[i] = int32(len(c.toks))
	}
}

// terms makes the lexicon of the workers' words and sets each worker's
// map from its word IDs to terms. The first worker's word table becomes
// the global one and the other workers' words are added to it (a book's
// vocabulary is small and mostly shared between the runs); then every
// distinct word is stemmed exactly once, the words split between the
// workers, and the stems are interned as terms in word order. x.lex's
// stems, and so the number of terms, are set on return; its maps are
// made and filled by a goroutine of their own, which maps counts.
func (x *Index) terms(ws []worker, maps *sync.WaitGroup) {
	global := &ws[0].words
	for k := 1; k < len(ws); k++ {
		w := &ws[k]
		w.local = make([]termID, len(w.words.words)) // global word IDs for now
		for i, word := range w.words.words {
			w.local[i] = global.id(word, 0, len(word))
		}
	}
	words := global.words
	stems := make([]string, len(words))
	n := len(ws)
	if len(words) < minStemRun {
		n = 1
	}
	stemRun := func(k int) {
		for w := k * len(words) / n; w < (k+1)*len(words)/n; w++ {
			stems[w] = textnorm.Stem(words[w])
		}
	}
	var wg sync.WaitGroup
	for k := 1; k < n; k++ {
		wg.Go(func() { stemRun(k) })
	}
	stemRun(0)
	wg.Wait()

	// The stems are interned in a word table too; the words and stems
	// live in the tables' arenas: nothing refers to the document or to
	// textnorm's allocations.
	var terms wordTable
	terms.init(maphash.MakeSeed(), len(words)) // at most one stem a word
	termOf := make([]termID, len(words))
	for w, stem := range stems {
		termOf[w] = terms.id(stem, 0, len(stem))
	}
	stemsOf := slices.Clone(terms.words) // without the spare capacity
	x.lex = lexicon{stems: stemsOf, counts: make([]int32, len(stemsOf)), vc: &vocabCache{}}
	ws[0].local = termOf
	for k := 1; k < len(ws); k++ {
		for w, g := range ws[k].local {
			ws[k].local[w] = termOf[g]
		}
	}
	maps.Go(func() { // the other goroutines read x.lex.stems only
		byStem := make(map[string]termID, len(stemsOf))
		for t, stem := range stemsOf {
			byStem[stem] = termID(t)
		}
		byWord := make(map[string]termID, len(words))
		for w, word := range words {
			byWord[word] = termOf[w]
		}
		x.lex.words, x.lex.terms = byWord, byStem
	})
}

// count counts the items of the chunk that hold each term (nTerms terms in
// all) and each item's length. The term frequencies are counted again
// when the postings are filled: keeping them meanwhile would take more
// memory than the postings themselves.
func (c *chunk) count(nTerms int) {
	c.df = make([]int32, nTerms)
	seen := make([]int32, nTerms) // the item (index+1) that last counted the term
	c.dls = make([]int32, len(c.items))
	local := c.w.local
	start := int32(0)
	for i, end := range c.ends {
		mark := int32(i + 1)
		for _, w := range c.toks[start:end] {
			if t := local[w]; seen[t] != mark {
				seen[t] = mark
				c.df[t]++
			}
		}
		c.dls[i] = end - start
		c.total += int64(end - start)
		start = end
	}
}

// postings writes the chunk's postings into arena, each term's at pos[t]
// on, item by item, and its entries into x.items.
func (c *chunk) postings(x *Index, arena []posting, pos []int32) {
	counts := make([]int32, len(pos))
	local := c.w.local
	var touched []termID
	start := int32(0)
	for i, it := range c.items {
		end := c.ends[i]
		for _, w := range c.toks[start:end] {
			t := local[w]
			if counts[t] == 0 {
				touched = append(touched, t)
			}
			counts[t]++
		}
		for _, t := range touched {
			arena[pos[t]] = posting{int32(it.id), counts[t]}
			pos[t]++
			counts[t] = 0
		}
		touched = touched[:0]
		x.items[it.id] = entry{text: it.text, dl: c.dls[i], live: true}
		start = end
	}
	c.toks, c.ends, c.w = nil, nil, nil
}

// fill sizes every postings list exactly (one backing array, term
// after term), then has each chunk write its postings and entries.
func (x *Index) fill(chunks []chunk, ws []worker) {
	// Chunk k's df becomes where it writes its first posting of each
	// term: after those of the chunks before it.
	nTerms := len(x.lex.stems)
	starts := make([]int32, nTerms+1)
	off := int32(0)
	for t := range nTerms {
		starts[t] = off
		for k := range chunks {
			n := chunks[k].df[t]
			chunks[k].df[t] = off
			off += n
		}
	}
	starts[nTerms] = off
	arena := make([]posting, off)
	x.post = make([][]posting, nTerms)
	for t := range nTerms {
		x.post[t] = arena[starts[t]:starts[t+1]:starts[t+1]]
	}
	parallel(chunks, ws, func(_ *worker, c *chunk) { c.postings(x, arena, c.df) })
	for k := range chunks {
		x.nItems += len(chunks[k].items)
		x.total += chunks[k].total
	}
}
