package builtins

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/models"
)

func TestDefaultModelWithoutConfiguration(t *testing.T) {
	_, m := install(t, nil)
	mod, err := m.Model(DefaultModelKey)
	require.NoError(t, err, "the agents load")
	require.Equal(t, DefaultModelKey, mod.Key)
	require.Empty(t, m.ModelID(DefaultModelKey))

	_, _, err = m.Provider(DefaultModelKey)
	require.ErrorIs(t, err, ErrNoDefaultModel)
	require.ErrorIs(t, err, models.ErrNoModel)
	require.ErrorContains(t, err, "AITE_MODEL=openai:gpt-4o-mini")
	require.ErrorContains(t, err, "OPENAI_API_KEY")

	_, err = m.Model("nope")
	require.ErrorIs(t, err, models.ErrUnknownModel)
}

func TestDefaultModelFromEnvironment(t *testing.T) {
	_, m := install(t, env{"AITE_MODEL": "openai:gpt-4o-mini", "OPENAI_API_KEY": "sk-test"})
	mod, err := m.Model(DefaultModelKey)
	require.NoError(t, err)
	require.Equal(t, "gpt-4o-mini", mod.Key, "the built-in models file supplies the capabilities")
	require.True(t, mod.SupportsJSONSchema)
	require.True(t, mod.HasPricing())
	require.Equal(t, "gpt-4o-mini", m.ModelID(DefaultModelKey))
	p, pm, err := m.Provider(DefaultModelKey)
	require.NoError(t, err)
	require.NotNil(t, p)
	require.Equal(t, "gpt-4o-mini", pm.ModelID)
}

func TestDefaultModelMissingKey(t *testing.T) {
	_, m := install(t, env{"AITE_MODEL": "openai:gpt-4o-mini"})
	_, _, err := m.Provider(DefaultModelKey)
	require.ErrorContains(t, err, `provider "openai"`)
	require.ErrorContains(t, err, "OPENAI_API_KEY")
}

func TestDefaultModelBadSpecStillLoadsAgents(t *testing.T) {
	_, m := install(t, env{"AITE_MODEL": "nosuchprovider:x"})
	_, err := m.Model(DefaultModelKey)
	require.NoError(t, err)
	_, _, err = m.Provider(DefaultModelKey)
	require.ErrorContains(t, err, "nosuchprovider")
}

// TestDefaultModelFromConfigFile streams one answer through "default"
// configured by a config file provider, against a fake OpenAI server.
func TestDefaultModelFromConfigFile(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Response{Chunks: []string{llmtest.ContentChunk("hi"), llmtest.FinishChunk("stop")}})
	root := t.TempDir()
	cfg := filepath.Join(root, "aite.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"defaultModel": "local:tiny",
		"providers": {"local": {"baseUrl": "`+srv.URL+`/v1"}}}`), 0o644))
	reg, ws, err := models.Load(models.LoadOptions{ConfigPath: cfg, WorkDir: root, Env: env{}.get})
	require.NoError(t, err)
	require.Empty(t, ws)
	m := NewModels(reg)
	p, mod, err := m.Provider(DefaultModelKey)
	require.NoError(t, err)
	require.Equal(t, "tiny", mod.ModelID)
	resp, err := llm.Collect(p.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}}))
	require.NoError(t, err)
	require.Equal(t, "hi", resp.Message.Content)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "tiny", reqs[0].JSON["model"])
}

func TestUserDefaultModelFileWins(t *testing.T) {
	d, m := install(t, env{"AITE_MODEL": "openai:gpt-4o-mini", "OPENAI_API_KEY": "k"})
	require.NoError(t, os.WriteFile(filepath.Join(d.Models, "default.json"),
		[]byte(`{"key": "default", "provider": "ollama", "modelId": "qwen3:8b"}`), 0o644))
	reg, _, err := models.Load(models.LoadOptions{WorkDir: t.TempDir(), Env: env{"AITE_MODELS_DIR": d.Models}.get})
	require.NoError(t, err)
	m.Set(reg)
	require.Same(t, reg, m.Registry())
	mod, err := m.Model(DefaultModelKey)
	require.NoError(t, err)
	require.Equal(t, "qwen3:8b", mod.ModelID)
	_, _, err = m.Provider(DefaultModelKey)
	require.NoError(t, err, "ollama needs no key")
}
