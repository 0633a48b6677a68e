package search

import (
	"runtime"
	"slices"
	"sync"

	"github.com/aitexteditor/aite/internal/document"
)

// minChunk is the least number of items worth a goroutine of its own.
const minChunk = 512

// chunk is the analysis of a run of items (in ID order) by one worker,
// with terms of its own lexicon.
type chunk struct {
	items []*document.Item
	lex   lexicon
	dls   []int32
	ends  []int32    // end of each item's terms in tfs
	tfs   []termFreq // local terms and frequencies, item after item
}

// rebuild indexes d from scratch (the mutex aside, every field is reset).
// The caller holds the write lock or owns x.
//
// Analysis (textnorm.Spans, the word lookups and textnorm.Stem of every new
// surface word) dominates the cost, so the items are split in runs analysed
// in parallel, each against a lexicon (and stems) of its own; the
// runs are then merged in ID order into exact-size postings (one backing
// array, no append slack).
func (x *Index) rebuild(d *document.Document) {
	x.rebuildWith(d, max(1, min(runtime.GOMAXPROCS(0), d.Len()/minChunk)))
}

// rebuildWith is rebuild with a given number of workers.
func (x *Index) rebuildWith(d *document.Document, workers int) {
	items := slices.Clone(d.Items())
	if !slices.IsSortedFunc(items, byID) {
		slices.SortFunc(items, byID)
	}
	maxID := 0
	if n := len(items); n > 0 {
		maxID = items[n-1].ID
	}
	x.doc, x.version, x.lex = d, d.Version(), newLexicon()
	x.post, x.items, x.nItems, x.total = nil, make([]entry, maxID+1), 0, 0
	chunks := analyse(items, workers)
	x.fillPostings(chunks, x.mergeLexicons(chunks))
}

func byID(a, b *document.Item) int { return a.ID - b.ID }

// analyse splits items into n runs and analyses them concurrently.
func analyse(items []*document.Item, n int) []chunk {
	// Each worker stems its own vocabulary: sharing a stem cache between
	// them cost more (locking, cloning) than stemming a word twice.
	chunks := make([]chunk, n)
	var wg sync.WaitGroup
	for i := range chunks {
		c := &chunks[i]
		c.items = items[i*len(items)/n : (i+1)*len(items)/n]
		c.lex = newLexicon()
		wg.Go(c.analyse)
	}
	wg.Wait()
	return chunks
}

// analyse counts the terms of the chunk's items.
func (c *chunk) analyse() {
	c.dls = make([]int32, len(c.items))
	c.ends = make([]int32, len(c.items))
	size := 0
	for _, it := range c.items {
		size += len(it.Text)
	}
	c.tfs = make([]termFreq, 0, size/10) // about one distinct term per 10 bytes
	for i, it := range c.items {
		c.dls[i] = c.lex.count(it.Text)
		for _, t := range c.lex.touched {
			c.tfs = append(c.tfs, termFreq{t, c.lex.counts[t]})
		}
		c.lex.reset()
		c.ends[i] = int32(len(c.tfs))
	}
}

// mergeLexicons makes x's lexicon from the chunks' and returns, per chunk,
// the map from its terms to x's. The first chunk's lexicon is adopted as is.
func (x *Index) mergeLexicons(chunks []chunk) [][]termID {
	remaps := make([][]termID, len(chunks))
	x.lex = chunks[0].lex
	remaps[0] = make([]termID, len(x.lex.stems))
	for t := range remaps[0] {
		remaps[0][t] = termID(t)
	}
	for i := 1; i < len(chunks); i++ {
		remaps[i] = x.mergeLexicon(&chunks[i].lex)
	}
	return remaps
}

// mergeLexicon adds a chunk's stems and surface words to x's lexicon and
// returns the map from the chunk's terms to x's.
func (x *Index) mergeLexicon(l *lexicon) []termID {
	remap := make([]termID, len(l.stems))
	for t, stem := range l.stems {
		remap[t] = x.lex.internStem(stem)
	}
	for w, t := range l.words {
		if _, ok := x.lex.words[w]; !ok {
			x.lex.words[w] = remap[t]
		}
	}
	return remap
}

// fillPostings sizes every postings list exactly, then fills them in item
// order, and records the entries.
func (x *Index) fillPostings(chunks []chunk, remaps [][]termID) {
	df := make([]int, len(x.lex.stems))
	total := 0
	for i := range chunks {
		for _, tf := range chunks[i].tfs {
			df[remaps[i][tf.term]]++
		}
		total += len(chunks[i].tfs)
	}
	arena := make([]posting, total)
	next := make([]int32, len(df)) // where each term's next posting goes
	off := 0
	for t, n := range df {
		next[t] = int32(off)
		off += n
	}
	for i := range chunks {
		c, remap, start := &chunks[i], remaps[i], int32(0)
		for k, it := range c.items {
			for _, tf := range c.tfs[start:c.ends[k]] {
				g := remap[tf.term]
				arena[next[g]] = posting{int32(it.ID), tf.tf}
				next[g]++
			}
			start = c.ends[k]
			x.setEntry(it.ID, entry{text: it.Text, dl: c.dls[k], live: true})
		}
	}
	x.post = make([][]posting, len(df))
	for t, n := range df {
		end := int(next[t])
		x.post[t] = arena[end-n : end : end]
	}
}
