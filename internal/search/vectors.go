package search

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// Search by meaning: every item's Text is turned into a vector by an
// embedding model (an Embedder: the llm layer's OpenAI-compatible
// /v1/embeddings client, or a fake in tests), and a query is answered by
// the items whose vectors are nearest to the query's (cosine similarity).
//
// Vectors are kept by the text they embed (a 64-bit hash of it), not by
// item: an edit changes an item's text, so only that text lacks a vector
// and only it is embedded again; a deleted item's vector is pruned; the
// index survives renumbering and another program's edits. An index holds
// the vectors of one model and one dimension only: vectors of another
// model are never mixed in (ErrDimension when a model answers with
// another dimension: the caller starts a new index).

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// MaxEmbedRunes bounds the text embedded for one item (longer items are
// cut: an embedding model reads a few thousand tokens at most).
const MaxEmbedRunes = 6000

// ErrDimension: a vector's dimension differs from the index's.
var ErrDimension = errors.New("the embedding's dimension differs from the index's")

// Vectors is the vector index of one document for one embedding model. It
// is safe for concurrent use.
type Vectors struct {
	mu    sync.RWMutex
	model string
	dim   int
	vecs  map[uint64][]float32 // text key → unit vector

	// keys caches the text key of each item of one document version;
	// texts the Text each key was made from, so that a new version hashes
	// only the items whose text changed.
	keys    map[int]uint64
	texts   map[int]string
	keysDoc *document.Document
	keysVer int
}

// NewVectors returns an empty index for a model.
func NewVectors(model string) *Vectors {
	return &Vectors{model: model, vecs: map[uint64][]float32{}}
}

// Model returns the model the vectors come from.
func (v *Vectors) Model() string { return v.model }

// Dim returns the dimension of the vectors (0 while empty).
func (v *Vectors) Dim() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.dim
}

// Len returns the number of vectors.
func (v *Vectors) Len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.vecs)
}

// EmbedText returns the text an item embeds: its Text, cut at
// MaxEmbedRunes; "" for an item without words (nothing to embed).
func EmbedText(it *document.Item) string {
	if len(textnorm.Spans(it.Text)) == 0 {
		return ""
	}
	t := it.Text
	if utf8.RuneCountInString(t) > MaxEmbedRunes {
		t = string([]rune(t)[:MaxEmbedRunes])
	}
	return t
}

func textKey(text string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	return h.Sum64()
}

// Pending is the text of an item that has no vector yet.
type Pending struct {
	ID   int
	Key  uint64
	Text string
}

// itemKeys returns the text key of every item of d that has words.
// Caller holds the write lock.
func (v *Vectors) itemKeys(d *document.Document) map[int]uint64 {
	if v.keysDoc == d && v.keysVer == d.Version() && v.keys != nil {
		return v.keys
	}
	keys := make(map[int]uint64, d.Len())
	texts := make(map[int]string, d.Len())
	for _, it := range d.Items() {
		if old, ok := v.texts[it.ID]; ok && old == it.Text {
			if k, ok := v.keys[it.ID]; ok {
				keys[it.ID] = k
			}
			texts[it.ID] = it.Text
			continue
		}
		if t := EmbedText(it); t != "" {
			keys[it.ID] = textKey(t)
		}
		texts[it.ID] = it.Text
	}
	if v.keysDoc != d {
		// another document: keys of equal IDs are not to be trusted
		clear(v.texts)
	}
	v.keys, v.texts, v.keysDoc, v.keysVer = keys, texts, d, d.Version()
	return keys
}

// Missing returns the items of d whose text has no vector, in document
// order, and the number of items that have words.
func (v *Vectors) Missing(d *document.Document) ([]Pending, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	keys := v.itemKeys(d)
	var out []Pending
	seen := map[uint64]bool{}
	for _, it := range d.Items() {
		k, ok := keys[it.ID]
		if !ok || seen[k] {
			continue
		}
		if _, have := v.vecs[k]; !have {
			seen[k] = true
			out = append(out, Pending{ID: it.ID, Key: k, Text: EmbedText(it)})
		}
	}
	return out, len(keys)
}

// Add stores the vectors of pending texts (in the same order), scaled to
// length 1. A vector of another dimension than the index's is refused
// with ErrDimension and nothing of the call is stored.
func (v *Vectors) Add(p []Pending, vecs [][]float32) error {
	if len(p) != len(vecs) {
		return fmt.Errorf("search: %d vectors for %d texts", len(vecs), len(p))
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	dim := v.dim
	for _, x := range vecs {
		if dim == 0 {
			dim = len(x)
		}
		if len(x) != dim || dim == 0 {
			return fmt.Errorf("%w: %d, not %d (model %s)", ErrDimension, len(x), dim, v.model)
		}
	}
	v.dim = dim
	for i, x := range vecs {
		v.vecs[p[i].Key] = unit(x)
	}
	return nil
}

// unit returns x scaled to length 1 (a copy).
func unit(x []float32) []float32 {
	var n float64
	for _, f := range x {
		n += float64(f) * float64(f)
	}
	out := make([]float32, len(x))
	if n == 0 {
		return out
	}
	s := 1 / math.Sqrt(n)
	for i, f := range x {
		out[i] = float32(float64(f) * s)
	}
	return out
}

// Prune drops the vectors no item of d uses and returns how many.
func (v *Vectors) Prune(d *document.Document) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	used := map[uint64]bool{}
	for _, k := range v.itemKeys(d) {
		used[k] = true
	}
	n := 0
	for k := range v.vecs {
		if !used[k] {
			delete(v.vecs, k)
			n++
		}
	}
	return n
}

// Embed embeds the pending texts in batches of batch (64 when 0), adding
// each batch to the index as it comes and calling progress (when set)
// with the texts done so far. On an error the batches before it are kept.
func (v *Vectors) Embed(ctx context.Context, e Embedder, pending []Pending, batch int, progress func(done, total int)) error {
	if batch <= 0 {
		batch = 64
	}
	for start := 0; start < len(pending); start += batch {
		part := pending[start:min(start+batch, len(pending))]
		texts := make([]string, len(part))
		for i, p := range part {
			texts[i] = p.Text
		}
		vecs, err := e.Embed(ctx, texts)
		if err != nil {
			return err
		}
		if err := v.Add(part, vecs); err != nil {
			return err
		}
		if progress != nil {
			progress(start+len(part), len(pending))
		}
	}
	return nil
}

// Query embeds a query (one call) and checks its dimension.
func (v *Vectors) Query(ctx context.Context, e Embedder, query string) ([]float32, error) {
	if len(textnorm.Spans(query)) == 0 {
		return nil, errEmpty("query", query)
	}
	vecs, err := e.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("search: %d vectors for one query", len(vecs))
	}
	if d := v.Dim(); d != 0 && len(vecs[0]) != d {
		return nil, fmt.Errorf("%w: %d, not %d (model %s)", ErrDimension, len(vecs[0]), d, v.model)
	}
	return unit(vecs[0]), nil
}

// Nearest returns the items of d nearest to the query vector q, best first
// (Score: the cosine similarity; ties in document order), with opt's
// filters and limit; items without a vector are left out. The snippet is
// the start of the item's text.
func (v *Vectors) Nearest(d *document.Document, q []float32, opt Options) ([]Result, error) {
	f, err := newFilter(d, opt)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	keys := v.itemKeys(d)
	v.mu.Unlock()
	v.mu.RLock()
	defer v.mu.RUnlock()
	if len(q) != v.dim {
		return nil, nil
	}
	top := &bestHits{k: f.limit}
	for _, it := range d.Items() {
		k, ok := keys[it.ID]
		if !ok || !f.keep(it) {
			continue
		}
		x, ok := v.vecs[k]
		if !ok {
			continue
		}
		top.add(hit{it: it, score: dot(q, x)})
	}
	best := top.sorted()
	out := make([]Result, len(best))
	for i, h := range best {
		out[i] = result(h.it, h.score, 0, snippet(h.it.Text, nil))
	}
	return out, nil
}

// dot is the dot product of two vectors of one length, four lanes at a
// time.
func dot(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}
