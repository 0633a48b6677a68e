package models

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

const testKey = "sk-live-0123456789abcdefXYZ"

func TestProviderOverrides(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "aite.json"), `{"providers":{
		"my-gateway": {"baseUrl":"https://gw.example/v1","apiKeyEnv":"GW_KEY","headers":{"X-Team":"books","X-Api-Key":"hdr-secret-0123456789"}},
		"openai": {"headers":{"OpenAI-Organization":"org-1"}},
		"literal": {"baseUrl":"http://lit.example","apiKey":"literal-key"},
		"broken": {"apiKeyEnv":"X"},
		"odd": {"baseUrl":"http://odd.example","protocol":"GRPC"},
		"newapi": {"baseUrl":"http://na.example","protocol":"NEWAPI_OPENAI_COMPATIBLE"}
	}}`)
	cfg := filepath.Join(dir, "aite.json")
	env := envMap{"GW_KEY": "from-gw-env", "OPENAI_API_KEY": "oa",
		"AITE_PROVIDER_MY_GATEWAY_BASE_URL": "https://gw2.example/v1"}
	r, ws := load(t, dir, env)

	gw, err := r.ProviderInfo("my-gateway")
	require.NoError(t, err)
	require.Equal(t, ProviderInfo{Key: "my-gateway", BaseURL: "https://gw2.example/v1", Protocol: ProtocolOpenAI,
		KeyStatus: "set (env GW_KEY)", KeySet: true, KeyEnv: "GW_KEY", Headers: []string{"X-Api-Key", "X-Team"},
		Source: cfg}, gw)

	oa, _ := r.ProviderInfo("openai")
	require.Equal(t, "https://api.openai.com/v1", oa.BaseURL, "the preset's base URL is kept")
	require.Equal(t, "set (env OPENAI_API_KEY)", oa.KeyStatus, "and its key source")
	require.Equal(t, []string{"OpenAI-Organization"}, oa.Headers)
	require.Equal(t, cfg, oa.Source)

	lit, _ := r.ProviderInfo("literal")
	require.Equal(t, "set (config file)", lit.KeyStatus)

	// The generic override beats apiKeyEnv and the literal key.
	env["AITE_PROVIDER_MY_GATEWAY_API_KEY"] = "override"
	env["AITE_PROVIDER_LITERAL_API_KEY"] = "override"
	r2, _ := load(t, dir, env)
	gw, _ = r2.ProviderInfo("my-gateway")
	require.Equal(t, "set (env AITE_PROVIDER_MY_GATEWAY_API_KEY)", gw.KeyStatus)
	require.Equal(t, "override", r2.providers["my-gateway"].apiKey)
	require.Equal(t, "override", r2.providers["literal"].apiKey)

	// Broken providers are kept (so models naming them are not "unknown")
	// but flagged.
	require.Len(t, ws, 3, "%v", ws)
	for _, w := range ws {
		require.Equal(t, cfg, w.File)
	}
	require.Equal(t, "providers.broken.baseUrl", ws[0].Field)
	require.Equal(t, "providers.newapi.newApiPath", ws[1].Field)
	require.Equal(t, "providers.odd.protocol", ws[2].Field)
	b, _ := r.ProviderInfo("broken")
	require.Equal(t, "baseUrl: missing", b.Problem)
	write(t, filepath.Join(dir, "models", "b.json"), `{"key":"b","provider":"broken","modelId":"m"}`)
	r3, _ := load(t, dir, env)
	_, _, err = r3.Provider("b")
	require.ErrorContains(t, err, "providers.broken.baseUrl: missing")
	require.ErrorContains(t, r3.Check(context.Background(), "broken"), "misconfigured")
}

// chatServer answers chat completions with two content chunks and a usage
// chunk, and GET /models with 200.
func chatServer(t *testing.T) *llmtest.Server {
	return llmtest.NewServerFunc(t, func(req llmtest.Request) llmtest.Response {
		if req.Method == http.MethodGet {
			return llmtest.Response{Raw: true, Chunks: []string{`{"data":[]}`}, NoDone: true}
		}
		return llmtest.Response{Chunks: []string{
			llmtest.ContentChunk("Hello, "), llmtest.ContentChunk("world"),
			llmtest.FinishChunk("stop"), llmtest.UsageChunk(2000, 500, 1000),
		}}
	})
}

func TestProviderStream(t *testing.T) {
	srv := chatServer(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "aite.json"), `{"providers":{"fake":{"baseUrl":"`+srv.URL+`","apiKeyEnv":"FAKE_KEY",
		"headers":{"X-Team":"books"}},
		"gate":{"baseUrl":"`+srv.URL+`/ignored","apiKeyEnv":"FAKE_KEY","newApiPath":"/api/chat/completions",
		"protocol":"NEWAPI_OPENAI_COMPATIBLE"}}}`)
	write(t, filepath.Join(dir, "models", "priced.json"), `{"key":"priced","provider":"fake","modelId":"fake-1",
		"supportsJSONSchema":true,"pricing":{"inputPer1K":0.01,"cachedInputPer1K":0.005,"outputPer1K":0.03}}`)
	write(t, filepath.Join(dir, "models", "points.json"), `{"key":"points","provider":"fake","modelId":"fake-2",
		"pricing":{"promptPointsPer1k":100,"completionPointsPer1k":300}}`)
	write(t, filepath.Join(dir, "models", "free.json"), `{"key":"free","provider":"fake","modelId":"fake-3"}`)
	write(t, filepath.Join(dir, "models", "gated.json"), `{"key":"gated","provider":"gate","modelId":"g"}`)
	var logs bytes.Buffer
	// No ReplaceAttr: the package and the adapter mask keys themselves.
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r, ws, err := Load(LoadOptions{WorkDir: dir, Env: envMap{"FAKE_KEY": testKey}.get, HTTPClient: srv.Client(),
		Logger: logger})
	require.NoError(t, err)
	require.Empty(t, ws)

	p, m, err := r.Provider("priced")
	require.NoError(t, err)
	require.Equal(t, "priced", m.Key)
	require.True(t, llm.SupportsJSONSchema(p, m.ModelID))
	resp, err := llm.Collect(p.Stream(context.Background(), &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	require.NoError(t, err)
	require.Equal(t, "Hello, world", resp.Message.Content)
	require.Equal(t, 2000, resp.Usage.InputTokens)
	require.Equal(t, 1000, resp.Usage.CachedInputTokens)
	require.InDelta(t, (1000*0.01+1000*0.005+500*0.03)/1000, resp.Usage.Cost, 1e-12)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "/v1/chat/completions", reqs[0].Path)
	require.Equal(t, "Bearer "+testKey, reqs[0].Header.Get("Authorization"))
	require.Equal(t, "books", reqs[0].Header.Get("X-Team"))
	require.Equal(t, "fake-1", reqs[0].JSON["model"], "the model id fills an empty Request.Model")

	p2, _, err := r.Provider("points")
	require.NoError(t, err)
	require.False(t, llm.SupportsJSONSchema(p2, "fake-2"))
	resp, err = llm.Collect(p2.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	require.NoError(t, err)
	require.InDelta(t, (2000*0.01+500*0.03)/1000, resp.Usage.Cost, 1e-12, "points: 100/10000 and 300/10000 per 1K")

	p3, _, _ := r.Provider("free")
	resp, err = llm.Collect(p3.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	require.NoError(t, err)
	require.Zero(t, resp.Usage.Cost, "unknown pricing costs 0")

	// Another model id in the request is sent as is and not priced.
	resp, err = llm.Collect(p.Stream(context.Background(), &llm.Request{Model: "other",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	require.NoError(t, err)
	require.Zero(t, resp.Usage.Cost)
	require.Equal(t, "other", srv.Requests()[3].JSON["model"])

	// A run sums its calls.
	var total llm.Usage
	for range 2 {
		resp, err = llm.Collect(p.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
		require.NoError(t, err)
		total = total.Add(resp.Usage)
	}
	require.InDelta(t, 2*(1000*0.01+1000*0.005+500*0.03)/1000, total.Cost, 1e-12)

	// NEWAPI: the origin of baseUrl + newApiPath.
	pg, _, err := r.Provider("gated")
	require.NoError(t, err)
	_, err = llm.Collect(pg.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	require.NoError(t, err)
	all := srv.Requests()
	require.Equal(t, "/api/chat/completions", all[len(all)-1].Path)

	// One adapter per provider and protocol.
	require.Len(t, r.built, 2)

	// Ad-hoc specs work too; unknown ones do not.
	_, m, err = r.Provider("fake:anything")
	require.NoError(t, err)
	require.Equal(t, SourceSpec, m.Source)
	_, _, err = r.Provider("ghost")
	require.ErrorIs(t, err, ErrUnknownModel)

	require.NoError(t, r.Check(context.Background(), "fake"))
	require.NotContains(t, logs.String(), testKey, "the debug log never holds the key")
	require.Contains(t, logs.String(), Mask(testKey), "the provider's key is logged masked")
	require.Contains(t, logs.String(), "llm/openai: http", "the adapter's exchanges were logged")
}

func TestNilRequest(t *testing.T) {
	srv := chatServer(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "aite.json"), `{"providers":{"fake":{"baseUrl":"`+srv.URL+`"}}}`)
	r, _, err := Load(LoadOptions{WorkDir: dir, Env: envMap{"AITE_MODEL": "fake:x"}.get, HTTPClient: srv.Client()})
	require.NoError(t, err)
	p, _, err := r.Provider("fake:x")
	require.NoError(t, err)
	_, err = llm.Collect(p.Stream(context.Background(), nil))
	require.NoError(t, err)
	require.Equal(t, "x", srv.Requests()[0].JSON["model"])
	require.True(t, strings.HasPrefix(srv.Requests()[0].Path, "/v1/"))
}

// AITE_MODEL=anthropic:<model> reaches Anthropic's Messages API (the
// anthropic adapter) at ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY: a fake
// Anthropic server answers, and the request is Anthropic's.
func TestAnthropicFromTheEnvironment(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.AnthropicText(7, 3, "Bon", "jour"))
	reg, ws, err := Load(LoadOptions{WorkDir: t.TempDir(), Env: envMap{"AITE_MODEL": "anthropic:claude-test",
		"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "sk-ant-secret"}.get})
	require.NoError(t, err)
	require.Empty(t, ws)
	m, err := reg.Default()
	require.NoError(t, err)
	require.Equal(t, "anthropic", m.Provider)
	require.Equal(t, "claude-test", m.ModelID)
	require.False(t, m.SupportsJSONSchema, "structured output through a forced tool")
	p, _, err := reg.Provider(m.Key)
	require.NoError(t, err)
	resp, err := llm.Collect(p.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	require.NoError(t, err)
	require.Equal(t, "Bonjour", resp.Message.Content)
	require.Equal(t, 7, resp.Usage.InputTokens)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "/v1/messages", reqs[0].Path)
	require.Equal(t, "sk-ant-secret", reqs[0].Header.Get("X-Api-Key"))
	require.Equal(t, "claude-test", reqs[0].JSON["model"])
	require.Equal(t, true, reqs[0].JSON["stream"])
}
