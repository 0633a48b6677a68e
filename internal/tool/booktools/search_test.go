package booktools

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

func TestFindByMeaning(t *testing.T) {
	e := env(t)
	r := Registry(e)
	res, v := call(t, r, "search-find", `{"query": "the letter left at the post office", "mode": "semantic"}`)
	require.False(t, res.IsError, res.Text)
	require.Equal(t, "ranked", v["mode"], "without an embedding model: by words, saying so")
	require.Contains(t, v["notice"], "no embedding model")

	srv := llmtest.NewEmbedServer(t, llmtest.EmbedModels(map[string]int{"emb": 4096},
		map[string]string{"letter": "letter", "конверт": "letter", "письмо": "letter", "post": "post", "почта": "post"}))
	e.Session.SetEmbeddings(&editor.Embeddings{Embedder: srv.Embedder(openai.EmbedConfig{Model: "emb"}), Model: "emb"})
	res, v = call(t, r, "search-find", `{"query": "the letter left at the post office"}`)
	require.False(t, res.IsError)
	require.Equal(t, "ranked", v["mode"])
	require.Contains(t, v["notice"], "no vector index yet")
	_, err := e.Session.IndexVectors(context.Background(), e.Book, nil)
	require.NoError(t, err)

	res, v = call(t, r, "search-find", `{"query": "the letter left at the post office"}`)
	require.False(t, res.IsError, res.Text)
	require.Equal(t, "hybrid", v["mode"], "hybrid by default once the book has vectors")
	require.NotEmpty(t, v["results"])
	res, v = call(t, r, "search-find", `{"query": "the letter left at the post office", "mode": "semantic"}`)
	require.False(t, res.IsError)
	require.Equal(t, "semantic", v["mode"])
	top := v["results"].([]any)[0].(map[string]any)
	require.Regexp(t, "почт|конверт|письм", top["snippet"])

	srv.FailWith(func(int) *llmtest.Response { return &llmtest.Response{Status: 500, Body: `{"error":"down"}`} })
	res, v = call(t, r, "search-find", `{"query": "часы на башне", "mode": "hybrid"}`)
	require.False(t, res.IsError)
	require.Equal(t, "ranked", v["mode"], "a failing model: words, and why")
	require.Contains(t, v["notice"], "search by meaning failed")
	require.NotEmpty(t, v["results"])
}
