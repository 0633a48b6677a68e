package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const modelsTestKey = "sk-cmdtest-0123456789abcdefXYZ"

// modelsEnv isolates a models test: a fresh working directory and home,
// every variable the registry reads cleared, then kv set.
func modelsEnv(t *testing.T, kv ...string) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	for _, e := range os.Environ() {
		name, _, _ := strings.Cut(e, "=")
		if strings.HasPrefix(name, "AITE_") || strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_BASE_URL") {
			t.Setenv(name, "")
		}
	}
	for _, name := range []string{"OLLAMA_HOST", "XDG_CONFIG_HOME", "AppData"} {
		t.Setenv(name, "")
	}
	t.Setenv("HOME", filepath.Join(dir, "home"))
	for i := 0; i+1 < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
	return dir
}

// fakeProvider answers GET /v1/models: 200 with the right key, else 401
// echoing what it got.
func fakeProvider(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+modelsTestKey || r.Header.Get("X-Team") != "books" {
			http.Error(w, `{"error":{"message":"bad key `+r.Header.Get("Authorization")+`"}}`, http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"fake-1"}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// writeModelsConfig writes aite.json with providers "fake" (at url, key
// from FAKE_KEY) and a models file priced for fake-1.
func writeModelsConfig(t *testing.T, dir, url string) {
	t.Helper()
	mustWrite(t, filepath.Join(dir, "aite.json"), `{"defaultModel":"fast","providers":{
		"fake":{"baseUrl":"`+url+`/v1","apiKeyEnv":"FAKE_KEY","headers":{"X-Team":"books"}}}}`)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "models"), 0o755))
	mustWrite(t, filepath.Join(dir, "models", "fast.json"), `{"key":"fast","provider":"fake","modelId":"fake-1",
		"supportsJSONSchema":true,"maxInputTokens":128000,"maxOutputTokens":4096,
		"pricing":{"inputPer1K":0.00015,"outputPer1K":0.0006}}`)
	mustWrite(t, filepath.Join(dir, "models", "think.json"), `{"key":"think","provider":"fake","modelId":"fake-r",
		"isReasoner":true,"isFunction":false}`)
}

func noKey(t *testing.T, r result) {
	t.Helper()
	require.NotContains(t, r.stdout, modelsTestKey)
	require.NotContains(t, r.stderr, modelsTestKey)
}

func TestModelsNothingConfigured(t *testing.T) {
	modelsEnv(t)
	r := run(t, "", "models")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stdout, "Models:\n  none\n")
	require.Contains(t, r.stdout, "Config: none (environment only)")
	for _, want := range []string{"no model is configured", "AITE_MODEL=openai:gpt-4o-mini", "OPENAI_API_KEY",
		"AITE_MODEL=ollama:qwen3:8b", "aite.json"} {
		require.Contains(t, r.stderr, want)
	}
}

func TestModelsText(t *testing.T) {
	srv := fakeProvider(t)
	dir := modelsEnv(t, "FAKE_KEY", modelsTestKey, "OPENAI_API_KEY", modelsTestKey)
	writeModelsConfig(t, dir, srv.URL)
	r := mustRun(t, "models")
	noKey(t, r)
	require.Empty(t, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	require.Regexp(t, `^  \* fast +fake +fake-1 +tools,json-schema +128000/4096 +0\.00015/0\.0006 +`+
		regexp.QuoteMeta(filepath.Join(dir, "models", "fast.json"))+`$`, lines[2])
	require.Regexp(t, `^    think +fake +fake-r +reasoner +\?/\? +unknown +`, lines[3])
	require.Contains(t, r.stdout, "  default: fast (defaultModel)\n")
	require.Regexp(t, `(?m)^  fake +`+regexp.QuoteMeta(srv.URL)+`/v1 +key: set \(env FAKE_KEY\) +`, r.stdout)
	require.Regexp(t, `(?m)^  openai +https://api.openai.com/v1 +key: set \(env OPENAI_API_KEY\) +builtin$`, r.stdout)
	require.Contains(t, r.stdout, "Config: "+filepath.Join(dir, "aite.json")+"; models dir: "+filepath.Join(dir, "models"))
}

func TestModelsJSON(t *testing.T) {
	srv := fakeProvider(t)
	dir := modelsEnv(t, "FAKE_KEY", modelsTestKey, "AITE_MODEL", "ollama:qwen3:8b", "OLLAMA_HOST", "127.0.0.1:11434")
	writeModelsConfig(t, dir, srv.URL)
	mustWrite(t, filepath.Join(dir, "models", "broken.json"), `{"key":"broken","provider":"fake"}`)
	r := mustRun(t, "--json", "models")
	noKey(t, r)
	require.Empty(t, r.stderr, "warnings go into the JSON")
	var rep struct {
		Config, ModelsDir, Default, DefaultFrom string
		Models                                  []map[string]any
		Providers                               []map[string]any
		Warnings                                []map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Equal(t, "ollama:qwen3:8b", rep.Default)
	require.Equal(t, "AITE_MODEL", rep.DefaultFrom)
	require.Len(t, rep.Models, 3)
	require.Equal(t, "fast", rep.Models[0]["key"])
	require.Equal(t, map[string]any{"inputPer1K": 0.00015, "outputPer1K": 0.0006}, rep.Models[0]["pricing"])
	require.Equal(t, false, rep.Models[0]["default"])
	wantKeys(t, "env model", rep.Models[1], "key", "provider", "modelId", "isReasoner", "supportsTools",
		"supportsJSONSchema", "source", "default")
	require.Equal(t, "qwen3:8b", rep.Models[1]["modelId"])
	require.Equal(t, true, rep.Models[1]["default"])
	require.Equal(t, "env", rep.Models[1]["source"])
	require.Len(t, rep.Providers, 2)
	require.Equal(t, "fake", rep.Providers[0]["key"])
	require.Equal(t, true, rep.Providers[0]["keySet"])
	require.Equal(t, []any{"X-Team"}, rep.Providers[0]["headers"])
	require.Equal(t, "http://127.0.0.1:11434/v1", rep.Providers[1]["baseUrl"])
	require.NotContains(t, rep.Providers[0], "check")
	require.Len(t, rep.Warnings, 1)
	require.Equal(t, "modelId", rep.Warnings[0]["field"])
	require.Equal(t, filepath.Join(dir, "models", "broken.json"), rep.Warnings[0]["file"])
}

func TestModelsCheck(t *testing.T) {
	srv := fakeProvider(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := l.Addr().String()
	require.NoError(t, l.Close())

	t.Run("all fine", func(t *testing.T) {
		dir := modelsEnv(t, "FAKE_KEY", modelsTestKey)
		writeModelsConfig(t, dir, srv.URL)
		r := mustRun(t, "models", "--check")
		require.Regexp(t, `(?m)^  fake +.* key: set \(env FAKE_KEY\) +\S+ +ok$`, r.stdout)
	})
	t.Run("auth error and unreachable", func(t *testing.T) {
		wrong := modelsTestKey + "-wrong"
		dir := modelsEnv(t, "FAKE_KEY", wrong, "AITE_MODEL", "vllm:m", "AITE_VLLM_BASE_URL", "http://"+down+"/v1")
		writeModelsConfig(t, dir, srv.URL)
		r := run(t, "", "models", "--check")
		require.Equal(t, 1, r.code, r.stderr)
		require.NotContains(t, r.stdout+r.stderr, wrong, "an echoed key is masked")
		require.Regexp(t, `(?m)^  fake +.* auth error: GET .*/v1/models: HTTP 401: .*bad key Bearer sk-\*\*\*ng`, r.stdout)
		require.Regexp(t, `(?m)^  vllm +http://`+regexp.QuoteMeta(down)+`/v1 +key: not needed +builtin +unreachable: .*connection refused$`, r.stdout)
		require.Contains(t, r.stderr, "aite: 2 of 2 providers failed the check")

		r = run(t, "", "--json", "models", "--check")
		require.Equal(t, 1, r.code)
		var rep struct {
			Providers []struct {
				Key   string
				Check checkResult
			}
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
		require.Equal(t, "auth error", rep.Providers[0].Check.Status)
		require.Equal(t, "unreachable", rep.Providers[1].Check.Status)
		require.Contains(t, r.stderr, `"error": "2 of 2 providers failed the check"`)
	})
}

func TestModelsConfigErrors(t *testing.T) {
	dir := modelsEnv(t)
	wantFail(t, 2, []string{"aite: model configuration: config file: open ", "no such file"},
		"models", "--config", filepath.Join(dir, "nope.json"))
	mustWrite(t, filepath.Join(dir, "bad.json"), `{"providers": [}`)
	wantFail(t, 1, []string{"aite: model configuration: "}, "models", "--config", filepath.Join(dir, "bad.json"))
}

func TestModelsBadDefault(t *testing.T) {
	modelsEnv(t, "AITE_MODEL", "nowhere:x", "OPENAI_API_KEY", modelsTestKey)
	mustWrite(t, "aite.json", `{}`)
	require.NoError(t, os.MkdirAll("models", 0o755))
	mustWrite(t, filepath.Join("models", "m.json"), `{"key":"m","provider":"openai","modelId":"gpt-4o"}`)
	r := run(t, "", "models")
	require.Equal(t, 1, r.code)
	noKey(t, r)
	require.Contains(t, r.stderr, `aite: warning: AITE_MODEL: unknown provider "nowhere"`)
	require.Contains(t, r.stdout, `default: error: AITE_MODEL="nowhere:x": unknown provider`)
	require.Contains(t, r.stderr, `aite: AITE_MODEL="nowhere:x"`)
}
