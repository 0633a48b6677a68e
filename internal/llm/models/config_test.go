package models

import (
	"errors"
	"io/fs"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/aitexteditor/aite/internal/llm/wire"
	"github.com/stretchr/testify/require"
)

func TestConfigSearchOrder(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	xdg := filepath.Join(root, "xdg")
	home := filepath.Join(root, "home")
	explicit := filepath.Join(root, "explicit.json")
	envPath := filepath.Join(root, "env.json")
	local := filepath.Join(work, "aite.json")
	xdgFile := filepath.Join(xdg, "aite", "config.json")
	homeFile := filepath.Join(home, ".config", "aite", "config.json")
	for _, p := range []string{explicit, envPath, local, xdgFile, homeFile} {
		write(t, p, `{"defaultModel":"openai:`+filepath.Base(filepath.Dir(p))+`"}`)
	}
	tests := []struct {
		name     string
		explicit string
		env      envMap
		noLocal  bool
		want     string
	}{
		{name: "explicit path wins", explicit: explicit, env: envMap{"AITE_CONFIG": envPath, "XDG_CONFIG_HOME": xdg}, want: explicit},
		{name: "AITE_CONFIG next", env: envMap{"AITE_CONFIG": envPath, "XDG_CONFIG_HOME": xdg}, want: envPath},
		{name: "working directory next", env: envMap{"XDG_CONFIG_HOME": xdg, "HOME": home}, want: local},
		{name: "XDG_CONFIG_HOME next", env: envMap{"XDG_CONFIG_HOME": xdg, "HOME": home}, noLocal: true, want: xdgFile},
		{name: "HOME/.config without XDG", env: envMap{"HOME": home}, noLocal: true, want: homeFile},
		{name: "none", env: envMap{"HOME": filepath.Join(root, "nohome")}, noLocal: true, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wd := work
			if tt.noLocal {
				wd = root
			}
			r, _, err := Load(LoadOptions{ConfigPath: tt.explicit, WorkDir: wd, Env: tt.env.get})
			require.NoError(t, err)
			require.Equal(t, tt.want, r.ConfigPath())
			if tt.want != "" {
				spec, from := r.DefaultSpec()
				require.Equal(t, "defaultModel", from)
				require.Equal(t, "openai:"+filepath.Base(filepath.Dir(tt.want)), spec)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Load(LoadOptions{ConfigPath: filepath.Join(dir, "missing.json"), WorkDir: dir, Env: envMap{}.get})
	require.ErrorIs(t, err, ErrConfig)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.Contains(t, err.Error(), "missing.json")

	_, _, err = Load(LoadOptions{WorkDir: dir, Env: envMap{"AITE_CONFIG": filepath.Join(dir, "gone.json")}.get})
	require.ErrorIs(t, err, ErrConfig)

	write(t, filepath.Join(dir, "aite.json"), "{\n  \"providers\": {\n    \"x\": {\"baseUrl\": 5}\n  }\n}")
	_, _, err = Load(LoadOptions{WorkDir: dir, Env: envMap{}.get})
	require.ErrorIs(t, err, ErrConfig)
	require.Contains(t, err.Error(), "providers.x.baseUrl")

	write(t, filepath.Join(dir, "aite.json"), "{\n  \"providers\": {,\n}")
	_, _, err = Load(LoadOptions{WorkDir: dir, Env: envMap{}.get})
	require.ErrorIs(t, err, ErrConfig)
	require.Contains(t, err.Error(), "line 2")
}

func TestConfigIgnoresOtherSections(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "aite.json"), `{"server":{"addr":":9090"},"auth":{"enabled":false},"defaultModel":"ollama:llama3"}`)
	r, ws := load(t, dir, envMap{})
	require.Empty(t, ws)
	m, err := r.Default()
	require.NoError(t, err)
	require.Equal(t, "ollama:llama3", m.Key)
	require.Equal(t, SourceConfig, m.Source)
}

func TestModelsDirResolution(t *testing.T) {
	root := t.TempDir()
	xdg := filepath.Join(root, "xdg")
	model := `{"key":"k","provider":"ollama","modelId":"m"}`

	t.Run("next to the config file", func(t *testing.T) {
		write(t, filepath.Join(xdg, "aite", "config.json"), `{}`)
		write(t, filepath.Join(xdg, "aite", "models", "k.json"), model)
		r, ws := load(t, root, envMap{"XDG_CONFIG_HOME": xdg})
		require.Empty(t, ws)
		require.Equal(t, filepath.Join(xdg, "aite", "models"), r.ModelsDir())
		require.Len(t, r.Models(), 1)
	})
	t.Run("modelsDir relative to the config file", func(t *testing.T) {
		cfg := filepath.Join(root, "c1", "aite.json")
		write(t, cfg, `{"modelsDir":"defs/m"}`)
		write(t, filepath.Join(root, "c1", "defs", "m", "k.json"), model)
		r, _, err := Load(LoadOptions{ConfigPath: cfg, WorkDir: root, Env: envMap{}.get})
		require.NoError(t, err)
		require.Equal(t, filepath.Join(root, "c1", "defs", "m"), r.ModelsDir())
		require.Len(t, r.Models(), 1)
	})
	t.Run("dirs.models of the server config", func(t *testing.T) {
		cfg := filepath.Join(root, "c2", "aite.json")
		write(t, cfg, `{"dirs":{"models":"mm"}}`)
		r, ws, err := Load(LoadOptions{ConfigPath: cfg, WorkDir: root, Env: envMap{}.get})
		require.NoError(t, err)
		require.Equal(t, filepath.Join(root, "c2", "mm"), r.ModelsDir())
		require.Len(t, ws, 1, "an explicit but missing models dir is worth a warning")
		require.Contains(t, ws[0].Message, "models directory not read")
	})
	t.Run("AITE_MODELS_DIR relative to the working directory", func(t *testing.T) {
		write(t, filepath.Join(root, "w", "elsewhere", "k.json"), model)
		r, _ := load(t, filepath.Join(root, "w"), envMap{"AITE_MODELS_DIR": "elsewhere"})
		require.Equal(t, filepath.Join(root, "w", "elsewhere"), r.ModelsDir())
		require.Len(t, r.Models(), 1)
	})
	t.Run("no config: models in the working directory, silent when missing", func(t *testing.T) {
		wd := filepath.Join(root, "empty")
		r, ws := load(t, wd, envMap{})
		require.Empty(t, ws)
		require.Equal(t, filepath.Join(wd, "models"), r.ModelsDir())
		require.Empty(t, r.Models())
	})
}

func TestErrNoModel(t *testing.T) {
	r, ws := load(t, t.TempDir(), envMap{})
	require.Empty(t, ws)
	_, err := r.Default()
	require.True(t, errors.Is(err, ErrNoModel))
	for _, want := range []string{"AITE_MODEL=openai:gpt-4o-mini", "OPENAI_API_KEY", "AITE_MODEL=ollama:qwen3:8b",
		"OLLAMA_HOST", "OPENAI_BASE_URL", "aite.json", `"providers"`, `"apiKeyEnv": "OPENAI_API_KEY"`,
		"models/mini.json", `"modelId": "gpt-4o-mini"`, "aite models --check"} {
		require.Contains(t, err.Error(), want)
	}
	require.Empty(t, r.Models())
	require.Empty(t, r.Providers(), "nothing is configured, so no provider is listed")
}

// Without a client of the caller's, the registry's adapters share the one
// of llm/wire, which keeps connections to a provider for reuse.
func TestRegistryKeepsProviderConnections(t *testing.T) {
	dir := t.TempDir()
	r, _, err := Load(LoadOptions{WorkDir: dir, Env: envMap{}.get})
	require.NoError(t, err)
	tr, ok := r.httpClient.Transport.(*http.Transport)
	require.True(t, ok, "transport %T", r.httpClient.Transport)
	require.Equal(t, wire.MaxIdleConnsPerHost, tr.MaxIdleConnsPerHost)
}
