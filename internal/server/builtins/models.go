package builtins

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
)

// DefaultModelKey is the modelKey of every built-in agent. It is not a
// models file: Models resolves it to the configured default model.
const DefaultModelKey = "default"

// ErrNoDefaultModel is the error of a run on modelKey "default" when no
// model is configured. Its text says how to configure one; it wraps
// models.ErrNoModel.
var ErrNoDefaultModel error = noDefaultModel{}

type noDefaultModel struct{}

func (noDefaultModel) Error() string {
	return `no model is configured, and the built-in agents use modelKey "default". ` +
		`Configure one and restart the server: export OPENAI_API_KEY=sk-... AITE_MODEL=openai:gpt-4o-mini; ` +
		`or AITE_MODEL=ollama:qwen3:8b for a local Ollama; or AITE_MODEL=openai:<model> with OPENAI_BASE_URL ` +
		`for any OpenAI-compatible server; or "defaultModel" and "providers" in aite.json (see 'aite models --help')`
}

func (noDefaultModel) Unwrap() error { return models.ErrNoModel }

// Models resolves model keys over the current model registry, for
// agentdef (Model) and the agent runtime (Provider). It adds one key,
// DefaultModelKey, resolved in this order:
//
//  1. a model whose key is "default" (a user's own models/default.json);
//  2. the registry's default model: AITE_MODEL, else the config file's
//     defaultModel;
//  3. none configured: Provider fails with ErrNoDefaultModel.
//
// Model never fails for DefaultModelKey: without a usable default it
// returns a placeholder without provider, so the agents still load and a
// run fails with Provider's error, which says what to do.
//
// Provider also fails early, with the variable to set, when the model's
// provider needs an API key that is missing. Set swaps the registry (hot
// reload); Models is safe for concurrent use.
type Models struct {
	reg atomic.Pointer[models.Registry]
}

// NewModels returns a model source over r.
func NewModels(r *models.Registry) *Models {
	m := &Models{}
	m.Set(r)
	return m
}

// Set replaces the registry.
func (m *Models) Set(r *models.Registry) { m.reg.Store(r) }

// Registry returns the current registry.
func (m *Models) Registry() *models.Registry { return m.reg.Load() }

// Model returns the model of key (agentdef.ModelLookup).
func (m *Models) Model(key string) (models.Model, error) {
	r := m.Registry()
	if key != DefaultModelKey {
		return r.Model(key)
	}
	mod, err := m.resolveDefault(r)
	if err != nil {
		return models.Model{Key: DefaultModelKey, SupportsTools: true, Source: "builtin"}, nil
	}
	return mod, nil
}

// Provider returns the provider and model of key (agent.ModelSource).
func (m *Models) Provider(key string) (llm.Provider, models.Model, error) {
	r := m.Registry()
	target := key
	if key == DefaultModelKey {
		mod, err := m.resolveDefault(r)
		if err != nil {
			return nil, models.Model{}, err
		}
		target = mod.Key
	}
	mod, err := r.Model(target)
	if err != nil {
		return nil, models.Model{}, err
	}
	if info, err := r.ProviderInfo(mod.Provider); err == nil && !info.KeySet && strings.HasPrefix(info.KeyStatus, "missing") {
		return nil, mod, fmt.Errorf("the API key of provider %q is %s, then restart the server", mod.Provider, info.KeyStatus)
	}
	return r.Provider(target)
}

// ModelID returns the provider model id of key, "" when it has none (the
// default without a configured model) or is unknown.
func (m *Models) ModelID(key string) string {
	mod, err := m.Model(key)
	if err != nil {
		return ""
	}
	return mod.ModelID
}

// resolveDefault finds the model DefaultModelKey stands for.
func (m *Models) resolveDefault(r *models.Registry) (models.Model, error) {
	if mod, err := r.Model(DefaultModelKey); err == nil {
		return mod, nil
	}
	mod, err := r.Default()
	if errors.Is(err, models.ErrNoModel) {
		return models.Model{}, ErrNoDefaultModel
	}
	if err != nil {
		return models.Model{}, err
	}
	return mod, nil
}
