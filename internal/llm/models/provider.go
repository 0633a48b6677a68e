package models

import (
	"context"
	"fmt"
	"iter"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/anthropic"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

// Provider returns the llm.Provider for a model (anything Resolve accepts:
// a key, provider:model, or a provider name with a defaultModel) together
// with the model. The adapter (OpenAI-compatible, or Anthropic's for
// protocol ANTHROPIC) is built once per provider and protocol and shared; the returned wrapper fills Request.Model with the
// model id when it is empty, prices every usage event with the model's
// pricing, and implements llm.StructuredProvider exactly when the model
// supports JSON Schema output.
func (r *Registry) Provider(key string) (llm.Provider, Model, error) {
	m, err := r.Resolve(key)
	if err != nil {
		return nil, Model{}, err
	}
	base, err := r.adapter(m)
	if err != nil {
		return nil, m, err
	}
	w := &pricedProvider{next: base, model: m}
	if m.SupportsJSONSchema {
		return &structuredProvider{w}, m, nil
	}
	return w, m, nil
}

// adapter returns the cached adapter of the model's provider.
func (r *Registry) adapter(m Model) (llm.Provider, error) {
	p, ok := r.providers[m.Provider]
	if !ok {
		return nil, fmt.Errorf("%w %q (%s)", ErrUnknownProvider, m.Provider, r.knownProviders())
	}
	if problem := r.problems[p.key]; problem != "" {
		return nil, fmt.Errorf("provider %q cannot be used: providers.%s.%s", p.key, p.key, problem)
	}
	protocol := m.Protocol
	if protocol == "" {
		protocol = p.cfg.Protocol
	}
	if protocol == ProtocolNewAPI && p.cfg.NewAPIPath == "" {
		return nil, fmt.Errorf("provider %q: %s needs providers.%s.newApiPath", p.key, ProtocolNewAPI, p.key)
	}
	cacheKey := p.key + "\x00" + protocol
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.built[cacheKey]; ok {
		return a, nil
	}
	if protocol == ProtocolAnthropic {
		a := anthropic.New(anthropic.Config{BaseURL: p.cfg.BaseURL, APIKey: p.apiKey, Headers: p.cfg.Headers,
			HTTPClient: r.httpClient, MaxRetries: noRetries, Logger: r.log})
		r.built[cacheKey] = a
		return a, nil
	}
	cfg := openai.Config{
		BaseURL:        p.cfg.BaseURL,
		APIKey:         p.apiKey,
		Headers:        p.cfg.Headers,
		HTTPClient:     r.httpClient,
		ThinkingParam:  p.cfg.ThinkingParam,
		ReasoningStyle: p.cfg.ReasoningStyle,
		MaxRetries:     noRetries,
		Logger:         r.log,
	}
	if protocol == ProtocolNewAPI {
		cfg.ChatPath = p.cfg.NewAPIPath
	}
	a := openai.New(cfg)
	r.built[cacheKey] = a
	return a, nil
}

// noRetries is the adapters' MaxRetries: none of their own, for the one
// retry rule of a model call is llm.Reconnect (see the package doc).
const noRetries = -1

// pricedProvider adds the model id and the cost to a shared adapter.
type pricedProvider struct {
	next  llm.Provider
	model Model
}

// Stream streams req, with Model defaulting to the model id and every usage
// event's Cost set from the model's pricing (when the pricing is known and
// the request is for this model).
func (w *pricedProvider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	if req == nil {
		req = &llm.Request{}
	}
	if req.Model == "" {
		req = req.Clone()
		req.Model = w.model.ModelID
	}
	price := w.model.HasPricing() && req.Model == w.model.ModelID
	inner := w.next.Stream(ctx, req)
	if !price {
		return inner
	}
	return func(yield func(llm.Event, error) bool) {
		for ev, err := range inner {
			if ev.Kind == llm.EventUsage && ev.Usage != nil {
				u := *ev.Usage
				u.Cost = w.model.Pricing.Cost(u)
				ev.Usage = &u
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// structuredProvider is a pricedProvider for a model with native JSON
// Schema output.
type structuredProvider struct{ *pricedProvider }

// SupportsJSONSchema reports true: the model enforces response_format
// json_schema.
func (structuredProvider) SupportsJSONSchema(string) bool { return true }

var (
	_ llm.Provider           = (*pricedProvider)(nil)
	_ llm.StructuredProvider = structuredProvider{}
)
