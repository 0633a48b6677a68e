package search

import (
	"hash/maphash"
	"runtime"
	"slices"
	"sync"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// minChunk is the least number of items worth a goroutine of its own.
const minChunk = 512

// minStemRun is the least number of distinct words worth stemming in
// parallel.
const minStemRun = 1024

// textItem is an item as the build reads it.
type textItem struct {
	id   int
	text string
}

// chunk is a run of items (in ID order) analysed by one worker.
type chunk struct {
	items []textItem

	// scan: the words of the items as IDs of the chunk's own word table
	words wordTable
	toks  []int32 // word IDs, item after item
	ends  []int32 // end of each item's words in toks

	// count: how many of the chunk's items hold each term, and their
	// lengths; then the postings
	local []termID // chunk word ID → term
	dls   []int32  // each item's length (number of words)
	df    []int32  // term → number of the chunk's items that hold it
	total int64    // sum of the items' lengths
}

// rebuild indexes d from scratch (the mutex aside, every field is reset).
// The caller holds the write lock or owns x.
//
// The work is split in runs of items handled by parallel workers, in
// phases:
//
//  1. scan: each worker splits its items into words (textnorm.NextWord)
//     and interns each word by its bytes in a table of its own, recording
//     the word IDs;
//  2. the workers' tables are merged (most words are in every run) and
//     each distinct surface word is stemmed once (textnorm.Stem), the
//     words split between the workers, then the stems are interned as
//     terms;
//  3. count: each worker counts, per term, the items that hold it;
//  4. fill: the postings are sized exactly (one backing array, no append
//     slack) and each worker counts the term frequencies of its items
//     and writes their postings, in ID order, at offsets known from the
//     counts of the runs before it (the frequencies are not kept between
//     the two: they would take more memory than the postings).
//
// Splitting and word lookups dominate the cost; stemming, once the
// dominant part, is small since each distinct word is stemmed once (and
// textnorm's stemmer fast paths). The result is exactly what analysing
// the items one by one gives (build_test.go checks it against a
// straightforward reference build).
func (x *Index) rebuild(d *document.Document) {
	x.rebuildWith(d, max(1, min(runtime.GOMAXPROCS(0), d.Len()/minChunk)))
}

// rebuildWith is rebuild with a given number of workers.
func (x *Index) rebuildWith(d *document.Document, workers int) {
	items := make([]textItem, 0, d.Len())
	d.EachText(func(id int, text string) { items = append(items, textItem{id, text}) })
	if !slices.IsSortedFunc(items, byID) {
		slices.SortFunc(items, byID)
	}
	maxID := 0
	if n := len(items); n > 0 {
		maxID = items[n-1].id
	}
	x.doc, x.version, x.fz, x.thawed, x.own = d, d.Version(), nil, nil, nil
	x.post, x.items, x.nItems, x.total = nil, make([]entry, maxID+1), 0, 0

	chunks := make([]chunk, workers)
	for i := range chunks {
		chunks[i].items = items[i*len(items)/workers : (i+1)*len(items)/workers]
	}
	seed := maphash.MakeSeed()
	parallel(chunks, func(c *chunk) { c.scan(seed) })
	x.lex = x.terms(chunks)
	parallel(chunks, func(c *chunk) { c.count(len(x.lex.stems)) })
	x.fill(chunks)
}

func byID(a, b textItem) int { return a.id - b.id }

// parallel runs f on every chunk, each in a goroutine of its own.
func parallel(chunks []chunk, f func(*chunk)) {
	if len(chunks) == 1 {
		f(&chunks[0])
		return
	}
	var wg sync.WaitGroup
	for i := range chunks {
		wg.Go(func() { f(&chunks[i]) })
	}
	wg.Wait()
}

// scan splits the chunk's items into words, interning them.
func (c *chunk) scan(seed maphash.Seed) {
	size := 0
	for _, it := range c.items {
		size += len(it.text)
	}
	c.words.init(seed, 1024)            // grows; a book's vocabulary is small
	c.toks = make([]int32, 0, size/5+1) // about one word per 6 bytes
	c.ends = make([]int32, len(c.items))
	for i, it := range c.items {
		text := it.text
		for j := 0; ; {
			start, end, ok := textnorm.NextWord(text, j)
			if !ok {
				break
			}
			c.toks = append(c.toks, c.words.id(text, start, end))
			j = end
		}
		c.ends[i] = int32(len(c.toks))
	}
}

// terms makes the lexicon of the chunks' words and sets each chunk's map
// from its word IDs to terms. The first chunk's word table becomes the
// global one and the other chunks' words are added to it (a book's
// vocabulary is small and mostly shared between the runs); then every
// distinct word is stemmed exactly once, the words split between the
// workers, and the stems are interned as terms in word order.
func (x *Index) terms(chunks []chunk) lexicon {
	global := &chunks[0].words
	for k := 1; k < len(chunks); k++ {
		c := &chunks[k]
		c.local = make([]termID, len(c.words.words)) // global word IDs for now
		for w, word := range c.words.words {
			c.local[w] = global.id(word, 0, len(word))
		}
	}
	words := global.words
	stems := make([]string, len(words))
	n := len(chunks)
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

	// The words live in the word tables' arenas and the stems in those or
	// in textnorm's own allocations: nothing refers to the document.
	lex := lexicon{
		words: make(map[string]termID, len(words)),
		terms: make(map[string]termID, len(words)/2),
		stems: make([]string, 0, len(words)/2),
		vc:    &vocabCache{},
	}
	termOf := make([]termID, len(words))
	for w, stem := range stems {
		t, ok := lex.terms[stem]
		if !ok {
			t = termID(len(lex.stems))
			lex.stems = append(lex.stems, stem)
			lex.terms[stem] = t
		}
		termOf[w] = t
		lex.words[words[w]] = t
	}
	lex.counts = make([]int32, len(lex.stems))
	chunks[0].local = termOf
	for k := 1; k < len(chunks); k++ {
		for w, g := range chunks[k].local {
			chunks[k].local[w] = termOf[g]
		}
	}
	return lex
}

// count counts the items of the chunk that hold each term (nTerms terms in
// all) and each item's length. The term frequencies are counted again
// when the postings are filled: keeping them meanwhile would take more
// memory than the postings themselves.
func (c *chunk) count(nTerms int) {
	c.df = make([]int32, nTerms)
	seen := make([]int32, nTerms) // the item (index+1) that last counted the term
	c.dls = make([]int32, len(c.items))
	start := int32(0)
	for i, end := range c.ends {
		mark := int32(i + 1)
		for _, w := range c.toks[start:end] {
			if t := c.local[w]; seen[t] != mark {
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
	var touched []termID
	start := int32(0)
	for i, it := range c.items {
		end := c.ends[i]
		for _, w := range c.toks[start:end] {
			t := c.local[w]
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
	c.toks, c.ends, c.local = nil, nil, nil
}

// fill sizes every postings list exactly (one backing array, term
// after term), then has each chunk write its postings and entries.
func (x *Index) fill(chunks []chunk) {
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
	parallel(chunks, func(c *chunk) { c.postings(x, arena, c.df) })
	for k := range chunks {
		x.nItems += len(chunks[k].items)
		x.total += chunks[k].total
	}
}
