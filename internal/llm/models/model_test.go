package models

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
)

func TestModelFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		// good: every field in this package's names
		"a-good.json": `{"key":"good","provider":"openai","modelId":"gpt-4o-mini","isReasoner":false,
			"supportsTools":true,"supportsJSONSchema":true,"maxInputTokens":128000,"maxOutputTokens":16384,
			"pricing":{"inputPer1K":0.00015,"cachedInputPer1K":0.000075,"outputPer1K":0.0006}}`,
		// PLATFORM_API names: isFunction, maxTokens, protocol, points pricing
		"b-platform.json": `{"key":"platform","provider":"deepseek","protocol":"OPENAI","modelId":"deepseek-reasoner",
			"isReasoner":true,"isFunction":false,"maxTokens":64000,"maxOutputTokens":8000,
			"pricing":{"promptPointsPer1k":40,"completionPointsPer1k":160,"priceRatio":0.5}}`,
		// minimal: defaults
		"c-minimal.json": `{"key":"minimal","provider":"ollama","modelId":"qwen3:8b","apiKey":"sk-should-not-be-here"}`,
		// points pricing with the parts that cannot be expressed
		"d-tiers.json": `{"key":"tiers","provider":"ollama","modelId":"t",
			"pricing":{"promptPointsPer1k":10,"completionPointsPer1k":20,"perCallPoints":5,"tiers":[{"upTo":1000}]}}`,
		"e-contradiction.json": `{"key":"contra","provider":"ollama","modelId":"c","supportsTools":false,"isFunction":true}`,
		// rejected files
		"no-key.json":       `{"provider":"openai","modelId":"x"}`,
		"no-provider.json":  `{"key":"np","modelId":"x"}`,
		"no-modelid.json":   `{"key":"nm","provider":"openai"}`,
		"unknown-prov.json": `{"key":"up","provider":"nowhere","modelId":"x"}`,
		"bad-protocol.json": `{"key":"bp","provider":"openai","modelId":"x","protocol":"GRPC"}`,
		"newapi.json":       `{"key":"na","provider":"openai","modelId":"x","protocol":"NEWAPI_OPENAI_COMPATIBLE"}`,
		"bad-type.json":     `{"key":"bt","provider":"openai","modelId":"x","maxOutputTokens":"many"}`,
		"bad-json.json":     "{\"key\":\"bj\",\n\"provider\":",
		"negative.json":     `{"key":"neg","provider":"openai","modelId":"x","maxInputTokens":-1}`,
		"neg-price.json":    `{"key":"negp","provider":"openai","modelId":"x","pricing":{"outputPer1K":-2}}`,
		"z-duplicate.json":  `{"key":"good","provider":"ollama","modelId":"other"}`,
		// ignored: not .json
		"notes.txt": `not a model`,
	}
	for name, content := range files {
		write(t, filepath.Join(dir, "models", name), content)
	}
	write(t, filepath.Join(dir, "models", "sub", "x.json"), `{}`) // subdirectories are not read
	r, ws := load(t, dir, envMap{})

	keys := []string{}
	for _, m := range r.Models() {
		keys = append(keys, m.Key)
	}
	require.Equal(t, []string{"contra", "good", "minimal", "platform", "tiers"}, keys, "sorted, bad files skipped")

	good, err := r.Model("good")
	require.NoError(t, err)
	require.Equal(t, Model{Key: "good", Provider: "openai", ModelID: "gpt-4o-mini", SupportsTools: true,
		SupportsJSONSchema: true, MaxInputTokens: 128000, MaxOutputTokens: 16384,
		Pricing: llm.Pricing{InputPer1K: 0.00015, CachedInputPer1K: 0.000075, OutputPer1K: 0.0006},
		Source:  filepath.Join(dir, "models", "a-good.json")}, good, "the first of the duplicates wins")

	p, err := r.Model("platform")
	require.NoError(t, err)
	require.True(t, p.IsReasoner)
	require.False(t, p.SupportsTools, "isFunction is an alias of supportsTools")
	require.Equal(t, 64000, p.MaxInputTokens, "maxTokens fills maxInputTokens")
	require.Equal(t, 8000, p.MaxOutputTokens)
	require.Equal(t, ProtocolOpenAI, p.Protocol)
	require.InDelta(t, 40.0/10000*0.5, p.Pricing.InputPer1K, 1e-12)
	require.InDelta(t, 160.0/10000*0.5, p.Pricing.OutputPer1K, 1e-12)

	m, err := r.Model("minimal")
	require.NoError(t, err)
	require.True(t, m.SupportsTools, "tools default to on")
	require.False(t, m.SupportsJSONSchema)
	require.False(t, m.HasPricing())

	contra, _ := r.Model("contra")
	require.False(t, contra.SupportsTools, "supportsTools beats isFunction")

	requireWarning(t, ws, "no-key.json", "key", "missing")
	requireWarning(t, ws, "no-provider.json", "provider", "missing")
	requireWarning(t, ws, "no-modelid.json", "modelId", "missing")
	requireWarning(t, ws, "unknown-prov.json", "provider", `unknown provider "nowhere"`)
	requireWarning(t, ws, "bad-protocol.json", "protocol", `"GRPC"`)
	requireWarning(t, ws, "newapi.json", "protocol", "newApiPath")
	requireWarning(t, ws, "bad-type.json", "maxOutputTokens", "expected int")
	requireWarning(t, ws, "bad-json.json", "", "invalid JSON")
	requireWarning(t, ws, "negative.json", "maxInputTokens", "negative")
	requireWarning(t, ws, "neg-price.json", "pricing.outputPer1K", "negative")
	requireWarning(t, ws, "z-duplicate.json", "key", `duplicate key "good", already defined by `+good.Source)
	requireWarning(t, ws, "c-minimal.json", "apiKey", "ignored")
	requireWarning(t, ws, "e-contradiction.json", "isFunction", "supportsTools wins")
	tw := warningFor(ws, "d-tiers.json")
	require.Len(t, tw, 2)
	require.Equal(t, "pricing.perCallPoints", tw[0].Field)
	require.Equal(t, "pricing.tiers", tw[1].Field)
	require.Len(t, ws, 15, "%v", ws)

	_, err = r.Model("nope")
	require.ErrorIs(t, err, ErrUnknownModel)
	require.Contains(t, err.Error(), "known: contra, good, minimal, platform, tiers")
}

func TestPricingBothForms(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "models", "m.json"), `{"key":"m","provider":"ollama","modelId":"m",
		"pricing":{"inputPer1K":1,"outputPer1K":2,"promptPointsPer1k":5}}`)
	r, ws := load(t, dir, envMap{})
	requireWarning(t, ws, "m.json", "pricing", "points are ignored")
	m, _ := r.Model("m")
	require.Equal(t, llm.Pricing{InputPer1K: 1, OutputPer1K: 2}, m.Pricing)
	require.InDelta(t, 3.0, m.Pricing.Cost(llm.Usage{InputTokens: 1000, OutputTokens: 1000}), 1e-12)
}

func TestEnvQuickStart(t *testing.T) {
	tests := []struct {
		name                    string
		env                     envMap
		key, provider, id, base string
		jsonSchema              bool
		keyStatus               string
	}{
		{name: "openai", env: envMap{"AITE_MODEL": "openai:gpt-4o-mini", "OPENAI_API_KEY": "sk-test-1234567890abcdef"},
			key: "openai:gpt-4o-mini", provider: "openai", id: "gpt-4o-mini", base: "https://api.openai.com/v1",
			jsonSchema: true, keyStatus: "set (env OPENAI_API_KEY)"},
		{name: "openai base url", env: envMap{"AITE_MODEL": "openai:local", "OPENAI_BASE_URL": "http://gw:9000/v1"},
			key: "openai:local", provider: "openai", id: "local", base: "http://gw:9000/v1", jsonSchema: true,
			keyStatus: "missing (set OPENAI_API_KEY or AITE_PROVIDER_OPENAI_API_KEY)"},
		{name: "ollama with OLLAMA_HOST", env: envMap{"AITE_MODEL": "ollama:qwen3:8b", "OLLAMA_HOST": "127.0.0.1:11434"},
			key: "ollama:qwen3:8b", provider: "ollama", id: "qwen3:8b", base: "http://127.0.0.1:11434/v1", keyStatus: "not needed"},
		{name: "ollama default host", env: envMap{"AITE_MODEL": "ollama:llama3.2"},
			key: "ollama:llama3.2", provider: "ollama", id: "llama3.2", base: "http://localhost:11434/v1", keyStatus: "not needed"},
		{name: "provider default model", env: envMap{"AITE_MODEL": "openai", "OPENAI_API_KEY": "k"},
			key: "openai:gpt-4o-mini", provider: "openai", id: "gpt-4o-mini", base: "https://api.openai.com/v1",
			jsonSchema: true, keyStatus: "set (env OPENAI_API_KEY)"},
		{name: "openrouter", env: envMap{"AITE_MODEL": "openrouter:anthropic/claude-3.5-haiku", "OPENROUTER_API_KEY": "k"},
			key: "openrouter:anthropic/claude-3.5-haiku", provider: "openrouter", id: "anthropic/claude-3.5-haiku",
			base: "https://openrouter.ai/api/v1", keyStatus: "set (env OPENROUTER_API_KEY)"},
		{name: "deepseek", env: envMap{"AITE_MODEL": "deepseek:deepseek-chat", "DEEPSEEK_API_KEY": "k"},
			key: "deepseek:deepseek-chat", provider: "deepseek", id: "deepseek-chat", base: "https://api.deepseek.com/v1",
			keyStatus: "set (env DEEPSEEK_API_KEY)"},
		{name: "vllm", env: envMap{"AITE_MODEL": "vllm:Qwen/Qwen3-8B"}, key: "vllm:Qwen/Qwen3-8B", provider: "vllm",
			id: "Qwen/Qwen3-8B", base: "http://localhost:8000/v1", keyStatus: "not needed"},
		{name: "lmstudio override", env: envMap{"AITE_MODEL": "lmstudio:m", "AITE_LMSTUDIO_BASE_URL": "http://box:1234/v1"},
			key: "lmstudio:m", provider: "lmstudio", id: "m", base: "http://box:1234/v1", keyStatus: "not needed"},
		{name: "llamacpp", env: envMap{"AITE_MODEL": "llamacpp:any"}, key: "llamacpp:any", provider: "llamacpp",
			id: "any", base: "http://localhost:8080/v1", keyStatus: "not needed"},
		{name: "generic override", env: envMap{"AITE_MODEL": "vllm:m", "AITE_PROVIDER_VLLM_BASE_URL": "http://gpu:8000/v1",
			"AITE_PROVIDER_VLLM_API_KEY": "secret"}, key: "vllm:m", provider: "vllm", id: "m",
			base: "http://gpu:8000/v1", keyStatus: "set (env AITE_PROVIDER_VLLM_API_KEY)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ws := load(t, t.TempDir(), tt.env)
			require.Empty(t, ws)
			m, err := r.Default()
			require.NoError(t, err)
			require.Equal(t, Model{Key: tt.key, Provider: tt.provider, ModelID: tt.id, SupportsTools: true,
				SupportsJSONSchema: tt.jsonSchema, Source: SourceEnv}, m)
			require.Equal(t, []Model{m}, r.Models())
			info, err := r.ProviderInfo(tt.provider)
			require.NoError(t, err)
			require.Equal(t, tt.base, info.BaseURL)
			require.Equal(t, tt.keyStatus, info.KeyStatus)
			require.Equal(t, "builtin", info.Source)
			listed := r.Providers()
			require.NotEmpty(t, listed)
			require.Contains(t, listed, info)
		})
	}
}

func TestOllamaBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "http://localhost:11434/v1",
		"127.0.0.1:11434":         "http://127.0.0.1:11434/v1",
		"127.0.0.1":               "http://127.0.0.1:11434/v1",
		"0.0.0.0":                 "http://0.0.0.0:11434/v1",
		":11500":                  "http://localhost:11500/v1",
		"http://gpu-box:11434/":   "http://gpu-box:11434/v1",
		"https://ollama.example":  "https://ollama.example/v1",
		"http://h:1/v1":           "http://h:1/v1",
		"http://h:1/proxy/ollama": "http://h:1/proxy/ollama/v1",
		"[::1]:11434":             "http://[::1]:11434/v1",
	} {
		require.Equal(t, want, OllamaBaseURL(in), "OLLAMA_HOST=%q", in)
	}
}

func TestEnvModelUsesModelsFile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "models", "mini.json"), `{"key":"mini","provider":"openai","modelId":"gpt-4o-mini",
		"supportsJSONSchema":false,"maxInputTokens":1000}`)
	for _, spec := range []string{"mini", "openai:gpt-4o-mini"} {
		r, ws := load(t, dir, envMap{"AITE_MODEL": spec})
		require.Empty(t, ws)
		m, err := r.Default()
		require.NoError(t, err)
		require.Equal(t, "mini", m.Key, spec)
		require.False(t, m.SupportsJSONSchema, "the file's capabilities win")
		require.Equal(t, 1000, m.MaxInputTokens)
		require.Len(t, r.Models(), 1, "no extra env model")
	}
	// AITE_MODEL beats the config file's defaultModel.
	write(t, filepath.Join(dir, "aite.json"), `{"defaultModel":"mini"}`)
	r, _ := load(t, dir, envMap{"AITE_MODEL": "ollama:x"})
	m, _ := r.Default()
	require.Equal(t, "ollama:x", m.Key)
	spec, from := r.DefaultSpec()
	require.Equal(t, [2]string{"ollama:x", "AITE_MODEL"}, [2]string{spec, from})
	r, _ = load(t, dir, envMap{})
	m, _ = r.Default()
	require.Equal(t, "mini", m.Key)
}

func TestBadDefault(t *testing.T) {
	tests := []struct {
		spec, want string
		err        error
	}{
		{"nowhere:m", `unknown provider "nowhere"`, ErrUnknownProvider},
		{"ghost", `unknown model "ghost"`, ErrUnknownModel},
		{"ollama", `provider "ollama" has no defaultModel`, ErrUnknownModel},
		{"openai:", `unknown model "openai:"`, ErrUnknownModel},
	}
	for _, tt := range tests {
		r, ws := load(t, t.TempDir(), envMap{"AITE_MODEL": tt.spec})
		require.Len(t, ws, 1)
		require.Equal(t, "AITE_MODEL", ws[0].Field)
		require.Contains(t, ws[0].Message, tt.want)
		_, err := r.Default()
		require.ErrorIs(t, err, tt.err)
		require.Contains(t, err.Error(), `AITE_MODEL="`+tt.spec+`"`)
		require.Empty(t, r.Models())
	}
}

func TestResolve(t *testing.T) {
	r, _ := load(t, t.TempDir(), envMap{})
	m, err := r.Resolve("ollama:qwen3:8b")
	require.NoError(t, err)
	require.Equal(t, Model{Key: "ollama:qwen3:8b", Provider: "ollama", ModelID: "qwen3:8b", SupportsTools: true,
		Source: SourceSpec}, m)
	_, err = r.Model("ollama:qwen3:8b")
	require.ErrorIs(t, err, ErrUnknownModel, "Model is strict; Resolve builds")
}

func FuzzParseModel(f *testing.F) {
	f.Add([]byte(`{"key":"k","provider":"openai","modelId":"m","pricing":{"promptPointsPer1k":1,"tiers":[1]}}`))
	f.Add([]byte(`{"key":"k","provider":"p","modelId":"m","isFunction":true,"maxTokens":5,"protocol":"OPENAI"}`))
	f.Add([]byte(`{"key":1}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var ws warnings
		m, ok := parseModel("m.json", data, &ws)
		if !ok {
			if len(ws) == 0 {
				t.Fatal("a rejected file without a warning")
			}
			return
		}
		if m.Key == "" || m.Provider == "" || m.ModelID == "" || m.MaxInputTokens < 0 || m.MaxOutputTokens < 0 ||
			m.Pricing.InputPer1K < 0 || m.Pricing.OutputPer1K < 0 || m.Source != "m.json" {
			t.Fatalf("accepted an invalid model: %+v", m)
		}
	})
}
