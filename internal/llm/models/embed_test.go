package models

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestEmbedModel(t *testing.T) {
	srv := llmtest.NewEmbedServer(t, llmtest.EmbedModels(map[string]int{"nomic-embed-text": 4, "text-embedding-3-small": 6}, nil))
	dir := t.TempDir()

	r, _ := load(t, dir, envMap{})
	_, _, err := r.Embedder("")
	require.ErrorIs(t, err, ErrNoEmbedModel)
	require.ErrorContains(t, err, "AITE_EMBED_MODEL=openai:text-embedding-3-small")
	spec, from := r.EmbedSpec()
	require.Empty(t, spec+from)

	r, _ = load(t, dir, envMap{"AITE_EMBED_MODEL": "ollama:nomic-embed-text", "OLLAMA_HOST": srv.URL})
	spec, from = r.EmbedSpec()
	require.Equal(t, "ollama:nomic-embed-text", spec)
	require.Equal(t, "AITE_EMBED_MODEL", from)
	e, m, err := r.Embedder("")
	require.NoError(t, err)
	require.Equal(t, "ollama", m.Provider)
	vs, err := e.Embed(context.Background(), []string{"часы"})
	require.NoError(t, err)
	require.Len(t, vs[0], 4, "through the provider's base URL")

	write(t, filepath.Join(dir, "aite.json"), `{"embedModel": "openai:text-embedding-3-small"}`)
	write(t, filepath.Join(dir, "models", "emb.json"), `{"key": "emb", "provider": "openai", "modelId": "text-embedding-3-small",
		"pricing": {"inputPer1K": 0.00002, "outputPer1K": 0}}`)
	r, _ = load(t, dir, envMap{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "sk-x"})
	spec, from = r.EmbedSpec()
	require.Equal(t, "openai:text-embedding-3-small", spec)
	require.Equal(t, "embedModel", from)
	e, m, err = r.Embedder("")
	require.NoError(t, err)
	require.True(t, m.HasPricing(), "a models file prices the tokens")
	vs, err = e.Embed(context.Background(), []string{"часы"})
	require.NoError(t, err)
	require.Len(t, vs[0], 6)
	require.Equal(t, "Bearer sk-x", srv.Requests()[1].Header.Get("Authorization"))

	_, _, err = r.Embedder("nowhere:model")
	require.ErrorIs(t, err, ErrUnknownProvider)
}
