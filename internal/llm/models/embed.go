package models

import (
	"fmt"

	"github.com/aitexteditor/aite/internal/llm/openai"
)

// EmbedSpec returns the embedding model as configured and where
// (AITE_EMBED_MODEL or the config file's embedModel); both "" when none
// is.
func (r *Registry) EmbedSpec() (spec, from string) {
	if r.embedSpec == "" {
		return "", ""
	}
	return r.embedSpec, r.embedFrom
}

// Embedder returns a client of the embedding model spec names (anything
// Resolve accepts; "" is the configured one, else the error wraps
// ErrNoEmbedModel) and the model, whose pricing prices the tokens. The
// client talks to the model's provider: its base URL, key and headers.
func (r *Registry) Embedder(spec string) (*openai.Embedder, Model, error) {
	if spec == "" {
		spec = r.embedSpec
	}
	if spec == "" {
		return nil, Model{}, ErrNoEmbedModel
	}
	m, err := r.Resolve(spec)
	if err != nil {
		return nil, Model{}, fmt.Errorf("embedding model %q: %w", spec, err)
	}
	p, ok := r.providers[m.Provider]
	if !ok {
		return nil, m, fmt.Errorf("%w %q (%s)", ErrUnknownProvider, m.Provider, r.knownProviders())
	}
	if problem := r.problems[p.key]; problem != "" {
		return nil, m, fmt.Errorf("provider %q cannot be used: providers.%s.%s", p.key, p.key, problem)
	}
	return openai.NewEmbedder(openai.EmbedConfig{BaseURL: p.cfg.BaseURL, APIKey: p.apiKey, Headers: p.cfg.Headers,
		HTTPClient: r.httpClient, Model: m.ModelID, Logger: r.log}), m, nil
}
