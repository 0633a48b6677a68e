package editor

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/search"
)

// countingEmbedder embeds in process and counts the texts; err, when set,
// fails every call.
type countingEmbedder struct {
	embed func(string) []float32
	texts int
	err   error
}

func (c *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if c.err != nil {
		return nil, c.err
	}
	c.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = c.embed(t)
	}
	return out, nil
}

var meaningSynonyms = map[string]string{"letter": "letter", "конверт": "letter", "письмо": "letter", "post": "post", "почта": "post"}

func embedder(dim int) *countingEmbedder {
	return &countingEmbedder{embed: llmtest.HashEmbedding(dim, meaningSynonyms)}
}

func TestSearchByMeaning(t *testing.T) {
	path, _ := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	ctx := context.Background()

	// Without a model everything works by words, and says so.
	res, err := s.SearchMeaning(ctx, path, "часы на башне", MeaningAuto, search.Options{})
	require.NoError(t, err)
	require.Equal(t, Ranked, res.Mode)
	require.Contains(t, res.Notice, "no embedding model")
	require.NotEmpty(t, res.Results)
	_, err = s.SearchMeaning(ctx, path, "x", Semantic, search.Options{})
	require.ErrorIs(t, err, ErrNoEmbeddings)
	_, err = s.IndexVectors(ctx, path, nil)
	require.ErrorIs(t, err, ErrNoEmbeddings)
	info, err := s.VectorStatus(path)
	require.NoError(t, err)
	require.False(t, info.Enabled)

	e := embedder(4096)
	s.SetEmbeddings(&Embeddings{Embedder: e, Model: "fake-4096", Batch: 10})
	res, err = s.SearchMeaning(ctx, path, "часы на башне", MeaningAuto, search.Options{})
	require.NoError(t, err)
	require.Equal(t, Ranked, res.Mode, "no index yet")
	require.Contains(t, res.Notice, "aite index BOOK")
	require.Zero(t, e.texts, "auto does not build an index")

	info, err = s.VectorStatus(path)
	require.NoError(t, err)
	require.Equal(t, info.Items, info.Missing)
	var steps []int
	n, err := s.IndexVectors(ctx, path, func(done, total int) { steps = append(steps, done) })
	require.NoError(t, err)
	require.Equal(t, info.Items, n)
	require.Equal(t, info.Items, e.texts)
	require.Equal(t, 10, steps[0], "in batches, with progress")
	require.FileExists(t, VectorsPath(path))

	res, err = s.SearchMeaning(ctx, path, "the letter left at the post office", MeaningAuto, search.Options{Limit: 5})
	require.NoError(t, err)
	require.Equal(t, Hybrid, res.Mode, "hybrid by default once the book has an index")
	require.Empty(t, res.Notice)
	require.NotEmpty(t, res.Results)
	sem, err := s.SearchMeaning(ctx, path, "the letter left at the post office", Semantic, search.Options{Limit: 5})
	require.NoError(t, err)
	require.Equal(t, Semantic, sem.Mode)
	require.Equal(t, res.Results[0].ID, sem.Results[0].ID, "no word matches, so hybrid ranks as meaning does")

	// An edit: only the changed item is embedded again, at the next search.
	e.texts = 0
	edited, err := s.Edit(path, document.OpReplace, "4:1.1.p1", "Письмо пришло на почту в конверте.")
	require.NoError(t, err)
	res, err = s.SearchMeaning(ctx, path, "a letter", Semantic, search.Options{Limit: 1})
	require.NoError(t, err)
	require.Equal(t, 1, res.Embedded)
	require.Equal(t, 2, e.texts, "the edited item and the query")
	require.Equal(t, edited.Pointer.ID, res.Results[0].ID)

	// Another process reads the stored vectors: only the query is embedded.
	s2, _ := reopen(t, path)
	e2 := embedder(4096)
	s2.SetEmbeddings(&Embeddings{Embedder: e2, Model: "fake-4096"})
	info, err = s2.VectorStatus(path)
	require.NoError(t, err)
	require.Equal(t, 1, info.Missing, "the unsaved edit is not in the file, so its item is the old one")
	_, err = s2.SearchMeaning(ctx, path, "почта", Hybrid, search.Options{})
	require.NoError(t, err)
	require.Equal(t, 2, e2.texts)
}

func TestSearchByMeaningFailsOverToWords(t *testing.T) {
	path, _ := sampleBook(t)
	s := New()
	_, err := s.Open(path)
	require.NoError(t, err)
	ctx := context.Background()
	e := embedder(64)
	s.SetEmbeddings(&Embeddings{Embedder: e, Model: "m", OnSearch: 5})
	_, err = s.IndexVectors(ctx, path, nil)
	require.NoError(t, err)

	e.err = errors.New("HTTP 429: rate limited")
	res, err := s.SearchMeaning(ctx, path, "часы", Hybrid, search.Options{})
	require.NoError(t, err)
	require.Equal(t, Ranked, res.Mode)
	require.Contains(t, res.Notice, "search by meaning failed (HTTP 429: rate limited)")
	require.NotEmpty(t, res.Results, "the answer is still there")
	e.err = nil

	// Too many items changed since the index: words, and a hint.
	for i := range 6 {
		_, err := s.Edit(path, document.OpInsertAfter, "2:1.p1", "Новый абзац номер "+string(rune('А'+i))+".")
		require.NoError(t, err)
	}
	res, err = s.SearchMeaning(ctx, path, "часы", Semantic, search.Options{})
	require.NoError(t, err)
	require.Equal(t, Ranked, res.Mode)
	require.Contains(t, res.Notice, "6 items have no vector yet")
	n, err := s.IndexVectors(ctx, path, nil)
	require.NoError(t, err)
	require.Equal(t, 6, n, "the index update embeds just those")

	// A model that changed its dimension: never mixed, started afresh.
	s.SetEmbeddings(&Embeddings{Embedder: embedder(32), Model: "m"})
	res, err = s.SearchMeaning(ctx, path, "часы", Semantic, search.Options{})
	require.NoError(t, err)
	require.Equal(t, Ranked, res.Mode)
	require.Contains(t, res.Notice, "dimension")
	info, err := s.VectorStatus(path)
	require.NoError(t, err)
	require.Equal(t, info.Items, info.Missing, "the old vectors are gone")
	require.Contains(t, info.Note, "started afresh")

	// Another model: the stored index is not used.
	s.SetEmbeddings(&Embeddings{Embedder: embedder(32), Model: "other"})
	_, err = s.IndexVectors(ctx, path, nil)
	require.NoError(t, err)
	s3, _ := reopen(t, path)
	s3.SetEmbeddings(&Embeddings{Embedder: embedder(64), Model: "m"})
	info, err = s3.VectorStatus(path)
	require.NoError(t, err)
	require.Contains(t, info.Note, "made with other, not m")
	require.Equal(t, info.Items, info.Missing)

	require.NoError(t, os.WriteFile(VectorsPath(path), []byte("garbage"), 0o644))
	s4, _ := reopen(t, path)
	s4.SetEmbeddings(&Embeddings{Embedder: embedder(64), Model: "m"})
	info, err = s4.VectorStatus(path)
	require.NoError(t, err)
	require.Contains(t, info.Note, "could not be read")
	_, err = s4.SearchMeaning(ctx, path, "часы", Semantic, search.Options{Limit: 0, Kinds: []document.Kind{"Nope"}})
	require.ErrorIs(t, err, search.ErrRange, "bad options fail before any model call")
}
