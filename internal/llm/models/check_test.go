package models

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// unusedAddr returns a localhost address nothing listens on.
func unusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func TestCheck(t *testing.T) {
	srv := llmtest.NewServerFunc(t, func(req llmtest.Request) llmtest.Response {
		switch req.Header.Get("Authorization") {
		case "Bearer " + testKey:
			return llmtest.Response{Raw: true, NoDone: true, Chunks: []string{`{"object":"list","data":[]}`}}
		case "Bearer boom":
			return llmtest.Response{Status: http.StatusBadGateway, Body: "upstream down"}
		}
		// A careless server that echoes the key it was given.
		return llmtest.Response{Status: http.StatusUnauthorized,
			Body: `{"error":{"message":"Incorrect API key provided: ` + req.Header.Get("Authorization") + `"}}`}
	})
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(slow.Close)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "aite.json"), `{"providers":{
		"good":{"baseUrl":"`+srv.URL+`/v1","apiKeyEnv":"GOOD_KEY"},
		"bad":{"baseUrl":"`+srv.URL+`","apiKeyEnv":"BAD_KEY"},
		"slow":{"baseUrl":"`+slow.URL+`"},
		"boom":{"baseUrl":"`+srv.URL+`","apiKey":"boom"},
		"down":{"baseUrl":"http://`+unusedAddr(t)+`/v1"},
		"nokey":{"baseUrl":"`+srv.URL+`","apiKeyEnv":"UNSET_KEY"}}}`)
	write(t, filepath.Join(dir, "models", "g.json"), `{"key":"g","provider":"good","modelId":"m"}`)
	wrongKey := "sk-wrong-0123456789abcdefghij"
	var logs bytes.Buffer
	r, ws, err := Load(LoadOptions{WorkDir: dir, HTTPClient: srv.Client(), CheckTimeout: 300 * time.Millisecond,
		Env:    envMap{"GOOD_KEY": testKey, "BAD_KEY": wrongKey}.get,
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	require.NoError(t, err)
	require.Empty(t, ws)
	ctx := context.Background()

	require.NoError(t, r.Check(ctx, "good"))
	require.NoError(t, r.Check(ctx, "g"), "a model key checks its provider")
	require.Equal(t, "/v1/models", srv.Requests()[0].Path)

	err = r.Check(ctx, "bad")
	require.True(t, llm.IsKind(err, llm.Auth), "%v", err)
	require.Contains(t, err.Error(), "HTTP 401")
	require.Contains(t, err.Error(), "Incorrect API key")
	require.NotContains(t, err.Error(), wrongKey, "an echoed key is masked")
	require.Contains(t, err.Error(), Mask(wrongKey))
	require.Equal(t, "/v1/models", srv.Requests()[2].Path, "a base URL without version gets /v1")

	err = r.Check(ctx, "down")
	require.True(t, llm.IsKind(err, llm.Network), "%v", err)
	require.Contains(t, err.Error(), "cannot reach")
	require.Contains(t, err.Error(), "connection refused")

	err = r.Check(ctx, "slow")
	require.True(t, llm.IsKind(err, llm.Timeout), "%v", err)

	err = r.Check(ctx, "boom")
	require.True(t, llm.IsKind(err, llm.Server), "%v", err)
	require.Contains(t, err.Error(), "upstream down")

	n := len(srv.Requests())
	err = r.Check(ctx, "nokey")
	require.True(t, llm.IsKind(err, llm.Auth), "%v", err)
	require.Contains(t, err.Error(), "no API key: missing (set UNSET_KEY")
	require.Len(t, srv.Requests(), n, "a missing key is reported without a request")

	require.ErrorIs(t, r.Check(ctx, "ghost"), ErrUnknownProvider)
	require.NotContains(t, logs.String(), testKey)
	require.NotContains(t, logs.String(), wrongKey)
}

func TestModelsURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.openai.com/v1":    "https://api.openai.com/v1/models",
		"https://api.openai.com/v1/":   "https://api.openai.com/v1/models",
		"http://localhost:11434":       "http://localhost:11434/v1/models",
		"https://openrouter.ai/api/v1": "https://openrouter.ai/api/v1/models",
		"https://x.example/api/v4":     "https://x.example/api/v4/models",
	} {
		require.Equal(t, want, modelsURL(in))
	}
}
