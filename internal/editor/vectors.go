package editor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/aitexteditor/aite/internal/search"
)

// Search by meaning (search.Vectors): the session embeds a book's items
// through the configured embedding model and keeps the vectors by the text
// they embed, so after an edit only the changed items are embedded again.
// A book file's vectors are stored in its state directory (VectorsPath)
// and read back in later commands; vectors of another model are never
// used. Embedding calls run outside the session lock.

// VectorsPath is the file of a book file's vector index.
func VectorsPath(book string) string { return filepath.Join(StateDir(book), "vectors.bin") }

// ErrNoEmbeddings is returned for a search by meaning when no embedding
// model is configured.
var ErrNoEmbeddings = errors.New("no embedding model is configured")

// Embeddings configures search by meaning for a session.
type Embeddings struct {
	Embedder search.Embedder
	// Model names the embedding model; an index of another model is set
	// aside and a new one built.
	Model string
	// Batch is the number of texts per request (64 when 0).
	Batch int
	// OnSearch bounds the items a search embeds before answering (the
	// items edited since the index was built); a search that would need
	// more falls back to ranking by words and says to update the index
	// (200 when 0).
	OnSearch int
}

// SetEmbeddings turns search by meaning on for the session's books (nil
// turns it off).
func (s *Session) SetEmbeddings(e *Embeddings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emb = e
}

// bookVectors is the vector state of an open book.
type bookVectors struct {
	v      *search.Vectors
	loaded bool
	note   string // why a stored index was not used
}

// vectorsName is the file of a book's vector index in its data.
const vectorsName = "vectors.bin"

// vectors returns the book's index for the session's model, reading a
// stored one on first use. Caller holds the lock; s.emb is set.
func (s *Session) vectors(b *book) *search.Vectors {
	bv := &b.vec
	if bv.v != nil && bv.v.Model() == s.emb.Model {
		return bv.v
	}
	if !bv.loaded {
		bv.loaded = true
		data, err := b.readData(vectorsName)
		switch {
		case err != nil:
			bv.note = fmt.Sprintf("the stored vector index (%s) could not be read: %v", b.dataWhere(vectorsName), err)
		case data != nil:
			v, err := search.UnmarshalVectors(data)
			switch {
			case err != nil:
				bv.note = fmt.Sprintf("the stored vector index (%s) could not be read (%v); it is built again", b.dataWhere(vectorsName), err)
			case v.Model() != s.emb.Model:
				bv.note = fmt.Sprintf("the stored vector index was made with %s, not %s; it is built again", v.Model(), s.emb.Model)
			default:
				bv.v = v
				return v
			}
		}
	}
	bv.v = search.NewVectors(s.emb.Model)
	return bv.v
}

// saveVectors stores a book's index (pruned) where its data is kept.
// Caller holds the lock.
func (b *book) saveVectors() error {
	if b.vec.v == nil || b.path == "" && b.store == nil {
		return nil
	}
	b.vec.v.Prune(b.doc)
	data, err := b.vec.v.MarshalBinary()
	if err != nil {
		return err
	}
	return b.writeData(vectorsName, data)
}

// VectorInfo describes a book's vector index.
type VectorInfo struct {
	Enabled bool   `json:"enabled"`
	Model   string `json:"model,omitempty"`
	Dim     int    `json:"dim,omitempty"`
	// Items counts the items with words; Embedded those with a vector;
	// Missing those without (new or edited since), MissingRunes their size.
	Items        int    `json:"items"`
	Embedded     int    `json:"embedded"`
	Missing      int    `json:"missing"`
	MissingRunes int    `json:"missingRunes"`
	Path         string `json:"path,omitempty"`
	Note         string `json:"note,omitempty"`
	// Pending are the texts to embed (for estimates).
	Pending []string `json:"-"`
}

// VectorStatus says how far the book's vector index is.
func (s *Session) VectorStatus(id string) (VectorInfo, error) {
	var out VectorInfo
	err := s.with(id, func(b *book) error {
		if s.emb == nil {
			return nil
		}
		v := s.vectors(b)
		p, total := v.Missing(b.doc)
		out = VectorInfo{Enabled: true, Model: v.Model(), Dim: v.Dim(), Items: total, Embedded: total - len(p), Missing: len(p), Note: b.vec.note}
		for _, x := range p {
			out.MissingRunes += len([]rune(x.Text))
			out.Pending = append(out.Pending, x.Text)
		}
		if b.path != "" {
			out.Path = VectorsPath(b.path)
		} else if b.store != nil {
			out.Path = b.dataWhere(vectorsName)
		}
		return nil
	})
	return out, err
}

// IndexVectors embeds every item of the book that has no vector (all of
// them the first time), in batches, calling progress after each, and
// stores the index beside a book file. On an error what was embedded is
// kept (and stored); the next call goes on. If the model now answers with
// another dimension the index is started afresh.
func (s *Session) IndexVectors(ctx context.Context, id string, progress func(done, total int)) (int, error) {
	var v *search.Vectors
	var pending []search.Pending
	var emb *Embeddings
	err := s.with(id, func(b *book) error {
		if s.emb == nil {
			return ErrNoEmbeddings
		}
		emb, v = s.emb, s.vectors(b)
		pending, _ = v.Missing(b.doc)
		return nil
	})
	if err != nil || len(pending) == 0 {
		return 0, err
	}
	done := 0
	track := func(n, total int) {
		done = n
		if progress != nil {
			progress(n, total)
		}
	}
	eerr := v.Embed(ctx, emb.Embedder, pending, emb.Batch, track)
	if errors.Is(eerr, search.ErrDimension) {
		err = s.with(id, func(b *book) error {
			b.vec = bookVectors{loaded: true, note: "the model's vectors changed dimension; the index was started afresh"}
			v = s.vectors(b)
			pending, _ = v.Missing(b.doc)
			return nil
		})
		if err != nil {
			return 0, err
		}
		done = 0
		eerr = v.Embed(ctx, emb.Embedder, pending, emb.Batch, track)
	}
	serr := s.with(id, func(b *book) error {
		if b.vec.v != v {
			return nil // the session's model changed meanwhile
		}
		return b.saveVectors()
	})
	return done, errors.Join(eerr, serr)
}

// Modes of SearchMeaning.
const (
	// MeaningAuto is hybrid when the book has a vector index, else ranked
	// by words (BM25), saying why.
	MeaningAuto SearchMode = "auto"
	// Semantic ranks by meaning only.
	Semantic SearchMode = "semantic"
	// Hybrid fuses the ranking by words and by meaning (search.Fuse).
	Hybrid SearchMode = "hybrid"
)

// MeaningResult is what a search by meaning found and how.
type MeaningResult struct {
	// Mode is how the results were ranked: semantic, hybrid or ranked (by
	// words: no index yet, or search by meaning failed; Notice says why).
	Mode    SearchMode      `json:"mode"`
	Results []search.Result `json:"results"`
	Notice  string          `json:"notice,omitempty"`
	// Embedded counts the items embedded for this search (edited since
	// the index was built).
	Embedded int `json:"embedded,omitempty"`
}

// SearchMeaning searches a book by meaning (Semantic), by words and
// meaning fused (Hybrid), or the best it can (MeaningAuto: hybrid when the
// book has a vector index, else by words). Before answering it embeds the
// items that changed since the index was built (up to Embeddings.OnSearch
// of them) and the query. It falls back to ranking by words (BM25), saying
// why in Notice, when the book has no index yet (auto), when too many items
// lack a vector, or when the embedding model fails (a rate limit, a dead
// endpoint). Without an embedding model, auto ranks by words and says so;
// semantic and hybrid fail with ErrNoEmbeddings.
func (s *Session) SearchMeaning(ctx context.Context, id, query string, mode SearchMode, opt search.Options) (MeaningResult, error) {
	var emb *Embeddings
	var v *search.Vectors
	var pending []search.Pending
	err := s.with(id, func(b *book) error {
		if _, _, err := search.Filter(b.doc, opt); err != nil {
			return err
		}
		emb = s.emb
		if emb != nil {
			v = s.vectors(b)
			pending, _ = v.Missing(b.doc)
		}
		return nil
	})
	switch {
	case err != nil:
		return MeaningResult{}, err
	case emb == nil && mode != MeaningAuto:
		return MeaningResult{}, ErrNoEmbeddings
	case emb == nil:
		return s.byWords(id, query, opt, "search by meaning is off: no embedding model is configured")
	case v.Len() == 0 && mode == MeaningAuto:
		return s.byWords(id, query, opt, "the book has no vector index yet, so it was searched by words only (aite index BOOK builds the index)")
	case len(pending) > orDefault(emb.OnSearch, 200):
		return s.byWords(id, query, opt, fmt.Sprintf("%d items have no vector yet, so the book was searched by words only (aite index BOOK embeds them)", len(pending)))
	}
	if err := v.Embed(ctx, emb.Embedder, pending, emb.Batch, nil); err != nil {
		_ = s.with(id, func(b *book) error { return b.saveVectors() })
		return s.failed(id, query, opt, err)
	}
	q, err := v.Query(ctx, emb.Embedder, query)
	if errors.Is(err, search.ErrEmptyQuery) {
		return MeaningResult{}, err
	}
	if err != nil {
		return s.failed(id, query, opt, err)
	}
	out := MeaningResult{Mode: mode, Embedded: len(pending)}
	if mode == MeaningAuto {
		out.Mode = Hybrid
	}
	err = s.with(id, func(b *book) error {
		if len(pending) > 0 {
			if err := b.saveVectors(); err != nil {
				out.Notice = err.Error()
			}
		}
		var err error
		out.Results, err = rankByMeaning(b, v, q, query, out.Mode, opt)
		return err
	})
	return out, err
}

func orDefault(n, d int) int {
	if n <= 0 {
		return d
	}
	return n
}

// rankByMeaning ranks by vectors, fused with BM25 for Hybrid. Caller holds
// the lock.
func rankByMeaning(b *book, v *search.Vectors, q []float32, query string, mode SearchMode, opt search.Options) ([]search.Result, error) {
	if mode == Semantic {
		return v.Nearest(b.doc, q, opt)
	}
	limit := orDefault(opt.Limit, search.DefaultLimit)
	deep := opt
	deep.Limit = min(max(3*limit, 50), search.MaxLimit)
	near, err := v.Nearest(b.doc, q, deep)
	if err != nil {
		return nil, err
	}
	words, err := b.idx().Ranked(b.doc, query, deep)
	if err != nil && !errors.Is(err, search.ErrEmptyQuery) {
		return nil, err
	}
	return search.Fuse(limit, words, near), nil
}

// byWords ranks by BM25 and says why.
func (s *Session) byWords(id, query string, opt search.Options, why string) (MeaningResult, error) {
	res, err := s.Search(id, query, Ranked, opt)
	return MeaningResult{Mode: Ranked, Results: res, Notice: why}, err
}

// failed falls back to BM25 after the embedding model failed; an index of
// another dimension is started afresh.
func (s *Session) failed(id, query string, opt search.Options, cause error) (MeaningResult, error) {
	if errors.Is(cause, search.ErrDimension) {
		_ = s.with(id, func(b *book) error {
			b.vec = bookVectors{loaded: true, note: "the model's vectors changed dimension; the index was started afresh"}
			return nil
		})
	}
	return s.byWords(id, query, opt, fmt.Sprintf("search by meaning failed (%v), so the book was searched by words only", cause))
}
