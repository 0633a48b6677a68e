package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

func TestEmbedder(t *testing.T) {
	srv := llmtest.NewEmbedServer(t, llmtest.EmbedModels(map[string]int{"small": 8}, nil))
	e := srv.Embedder(openai.EmbedConfig{Model: "small", APIKey: "sk-test", Headers: map[string]string{"X-Team": "books"}})
	vs, err := e.Embed(context.Background(), []string{"Часы идут назад", "the clock runs backwards"})
	require.NoError(t, err)
	require.Len(t, vs, 2)
	require.Len(t, vs[0], 8)
	require.Equal(t, llmtest.HashEmbedding(8, nil)("Часы идут назад"), vs[0], "in the order of the texts")
	r := srv.Requests()[0]
	require.Equal(t, "small", r.Model)
	require.Equal(t, "Bearer sk-test", r.Header.Get("Authorization"))
	require.Equal(t, "books", r.Header.Get("X-Team"))
	require.Equal(t, 7, e.Tokens(), "the usage the server reports")
	none, err := e.Embed(context.Background(), nil)
	require.NoError(t, err)
	require.Nil(t, none)
	require.Len(t, srv.Requests(), 1, "nothing to embed, no request")
	require.Equal(t, "small", e.Model())
}

func TestEmbedderOrdersByIndex(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/v1/embeddings", r.URL.Path)
		_, _ = w.Write([]byte(`{"data":[{"index":1,"embedding":[2]},{"index":0,"embedding":[1]}]}`))
	}))
	defer srv.Close()
	vs, err := openai.NewEmbedder(openai.EmbedConfig{BaseURL: srv.URL, Model: "m"}).Embed(context.Background(), []string{"a", "b"})
	require.NoError(t, err)
	require.Equal(t, [][]float32{{1}, {2}}, vs)
}

func TestEmbedderFailures(t *testing.T) {
	embed := llmtest.EmbedModels(map[string]int{"m": 4}, nil)
	t.Run("a rate limit is retried after the server's delay", func(t *testing.T) {
		srv := llmtest.NewEmbedServer(t, embed)
		srv.FailWith(func(n int) *llmtest.Response {
			if n == 1 {
				return &llmtest.Response{Status: 429, Header: http.Header{"Retry-After": {"2"}}, Body: `{"error":{"message":"slow down"}}`}
			}
			return nil
		})
		var sleeps llmtest.Sleeps
		vs, err := srv.Embedder(openai.EmbedConfig{Model: "m", Sleep: sleeps.Sleep}).Embed(context.Background(), []string{"x"})
		require.NoError(t, err)
		require.Len(t, vs, 1)
		require.Equal(t, []time.Duration{2 * time.Second}, sleeps.Durations())
	})
	t.Run("retries run out", func(t *testing.T) {
		srv := llmtest.NewEmbedServer(t, embed)
		srv.FailWith(func(int) *llmtest.Response { return &llmtest.Response{Status: 503, Body: `{"error":"busy"}`} })
		_, err := srv.Embedder(openai.EmbedConfig{Model: "m", MaxRetries: 2}).Embed(context.Background(), []string{"x"})
		require.True(t, llm.IsKind(err, llm.Server), "%v", err)
		require.Len(t, srv.Requests(), 3)
	})
	t.Run("a bad request is not retried", func(t *testing.T) {
		srv := llmtest.NewEmbedServer(t, embed)
		_, err := srv.Embedder(openai.EmbedConfig{Model: "nope"}).Embed(context.Background(), []string{"x"})
		require.True(t, llm.IsKind(err, llm.BadRequest), "%v", err)
		require.ErrorContains(t, err, `model "nope" not found`)
		require.Len(t, srv.Requests(), 1)
	})
	t.Run("a dead endpoint", func(t *testing.T) {
		srv := llmtest.NewEmbedServer(t, embed)
		e := srv.Embedder(openai.EmbedConfig{Model: "m", MaxRetries: -1})
		srv.Close()
		_, err := e.Embed(context.Background(), []string{"x"})
		require.True(t, llm.IsKind(err, llm.Network), "%v", err)
	})
	t.Run("a hanging endpoint and a deadline", func(t *testing.T) {
		srv := llmtest.NewEmbedServer(t, embed)
		srv.FailWith(func(int) *llmtest.Response { return &llmtest.Response{Hang: true} })
		_, err := srv.Embedder(openai.EmbedConfig{Model: "m", RequestTimeout: 50 * time.Millisecond}).Embed(context.Background(), []string{"x"})
		require.True(t, llm.IsKind(err, llm.Timeout), "%v", err)
	})
	t.Run("a reply that does not fit", func(t *testing.T) {
		for _, body := range []string{`not json`, `{"data":[]}`, `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
			_, err := openai.NewEmbedder(openai.EmbedConfig{BaseURL: srv.URL, Model: "m", MaxRetries: -1}).Embed(context.Background(), []string{"a", "b"})
			srv.Close()
			require.True(t, llm.IsKind(err, llm.Protocol), "%s: %v", body, err)
		}
	})
}

func TestHashEmbeddingIsDeterministicAndSeesForms(t *testing.T) {
	e := llmtest.HashEmbedding(64, map[string]string{"топор": "axe", "axe": "axe", "hatchet": "axe"})
	cos := func(a, b []float32) float64 {
		s := 0.0
		for i := range a {
			s += float64(a[i] * b[i])
		}
		return s
	}
	require.Equal(t, e("He hides the axe"), e("He hides the axe"))
	require.Greater(t, cos(e("hides the axe"), e("hid the hatchet")), cos(e("hides the axe"), e("the clock on the tower")))
	require.InDelta(t, 1.0, cos(e("топором"), e("axe")), 1e-6, "a synonym group is one feature")
	b, _ := json.Marshal(e(""))
	require.Contains(t, string(b), "0", "an empty text is the zero vector")
}
