package models

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/llm"
)

// Model sources other than a file path.
const (
	SourceEnv    = "env"    // defined by AITE_MODEL
	SourceConfig = "config" // defined by the config file's defaultModel (provider:model)
)

// PointsPerUnit converts the points of PLATFORM_API pricing into currency
// units: 10000 points = 1 unit.
const PointsPerUnit = 10000

// Model is one model aite can use.
//
// A models/<key>.json file holds {key, provider, modelId, protocol?,
// isReasoner?, supportsTools?, supportsJSONSchema?, maxInputTokens?,
// maxOutputTokens?, pricing?}. Also accepted (PLATFORM_API § 7.4):
// isFunction for supportsTools, maxTokens (the context window) for
// maxInputTokens when that is absent, and pricing in points,
// {promptPointsPer1k, completionPointsPer1k, priceRatio?}, converted at
// PointsPerUnit points per unit and multiplied by priceRatio (perCallPoints
// and tiers cannot be expressed and are ignored with a warning). Absent
// capabilities: supportsTools true, the others false. Unknown fields are
// ignored; an apiKey is ignored with a warning (keys belong to providers).
type Model struct {
	Key                string      `json:"key"`
	Provider           string      `json:"provider"`
	ModelID            string      `json:"modelId"`
	Protocol           string      `json:"protocol,omitempty"` // "" = the provider's
	IsReasoner         bool        `json:"isReasoner"`
	SupportsTools      bool        `json:"supportsTools"`
	SupportsJSONSchema bool        `json:"supportsJSONSchema"`
	MaxInputTokens     int         `json:"maxInputTokens,omitempty"`  // 0 = unknown
	MaxOutputTokens    int         `json:"maxOutputTokens,omitempty"` // 0 = unknown
	Pricing            llm.Pricing `json:"pricing,omitzero"`          // zero = unknown
	Source             string      `json:"source"`                    // the file path, SourceEnv or SourceConfig
}

// HasPricing reports whether the model's prices are known.
func (m Model) HasPricing() bool { return m.Pricing != llm.Pricing{} }

// modelFile is a models file as written.
type modelFile struct {
	Key                string          `json:"key"`
	Provider           string          `json:"provider"`
	ModelID            string          `json:"modelId"`
	Protocol           string          `json:"protocol"`
	IsReasoner         *bool           `json:"isReasoner"`
	SupportsTools      *bool           `json:"supportsTools"`
	IsFunction         *bool           `json:"isFunction"`
	SupportsJSONSchema *bool           `json:"supportsJSONSchema"`
	MaxTokens          *int            `json:"maxTokens"`
	MaxInputTokens     *int            `json:"maxInputTokens"`
	MaxOutputTokens    *int            `json:"maxOutputTokens"`
	Pricing            *pricingFile    `json:"pricing"`
	APIKey             json.RawMessage `json:"apiKey"` // not allowed here: only detected, to warn
}

// pricingFile accepts both pricing forms.
type pricingFile struct {
	InputPer1K            *float64        `json:"inputPer1K"`
	CachedInputPer1K      *float64        `json:"cachedInputPer1K"`
	OutputPer1K           *float64        `json:"outputPer1K"`
	PromptPointsPer1k     *float64        `json:"promptPointsPer1k"`
	CompletionPointsPer1k *float64        `json:"completionPointsPer1k"`
	PerCallPoints         *float64        `json:"perCallPoints"`
	PriceRatio            *float64        `json:"priceRatio"`
	Tiers                 json.RawMessage `json:"tiers"`
}

// readModelsDir reads every *.json file of dir in name order. A missing
// directory gives no models (and a warning when it was set explicitly).
func readModelsDir(dir string, explicit bool, ws *warnings) []Model {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if explicit || !errors.Is(err, os.ErrNotExist) {
			ws.add(dir, "", "models directory not read: %v", err)
		}
		return nil
	}
	var out []Model
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if m, ok := readModelFile(path, ws); ok {
			out = append(out, m)
		}
	}
	return out
}

// readModelFile decodes one models file; its own problems are warnings.
func readModelFile(path string, ws *warnings) (Model, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		ws.add(path, "", "not read: %v", err)
		return Model{}, false
	}
	return parseModel(path, data, ws)
}

// parseModel decodes and validates the content of a models file.
func parseModel(path string, data []byte, ws *warnings) (Model, bool) {
	var f modelFile
	if err := json.Unmarshal(data, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			ws.add(path, te.Field, "expected %s, found %s; file ignored", te.Type, te.Value)
		} else {
			ws.add(path, "", "invalid JSON (%s); file ignored", describeJSONError(data, err, ""))
		}
		return Model{}, false
	}
	return f.model(path, ws)
}

// model validates f and converts it; problems are reported against path.
func (f *modelFile) model(path string, ws *warnings) (Model, bool) {
	for _, req := range []struct{ field, value string }{{"key", f.Key}, {"provider", f.Provider}, {"modelId", f.ModelID}} {
		if strings.TrimSpace(req.value) == "" {
			ws.add(path, req.field, "missing; file ignored")
			return Model{}, false
		}
	}
	if f.Protocol != "" && !knownProtocol(f.Protocol) {
		ws.add(path, "protocol", "unknown protocol %q (want %s); file ignored", f.Protocol, protocolList)
		return Model{}, false
	}
	if len(f.APIKey) > 0 {
		ws.add(path, "apiKey", "ignored: API keys belong to the providers of the config file or the environment")
	}
	m := Model{Key: f.Key, Provider: f.Provider, ModelID: f.ModelID, Protocol: f.Protocol, Source: path,
		IsReasoner: deref(f.IsReasoner), SupportsTools: true, SupportsJSONSchema: deref(f.SupportsJSONSchema)}
	switch {
	case f.SupportsTools != nil:
		m.SupportsTools = *f.SupportsTools
		if f.IsFunction != nil && *f.IsFunction != *f.SupportsTools {
			ws.add(path, "isFunction", "contradicts supportsTools; supportsTools wins")
		}
	case f.IsFunction != nil:
		m.SupportsTools = *f.IsFunction
	}
	limits := []struct {
		field string
		v     *int
		dst   *int
	}{{"maxInputTokens", f.MaxInputTokens, &m.MaxInputTokens}, {"maxOutputTokens", f.MaxOutputTokens, &m.MaxOutputTokens}, {"maxTokens", f.MaxTokens, nil}}
	for _, l := range limits {
		if l.v != nil && *l.v < 0 {
			ws.add(path, l.field, "negative (%d); file ignored", *l.v)
			return Model{}, false
		}
		if l.v != nil && l.dst != nil {
			*l.dst = *l.v
		}
	}
	if f.MaxInputTokens == nil && f.MaxTokens != nil {
		m.MaxInputTokens = *f.MaxTokens
	}
	if f.Pricing != nil {
		p, ok := f.Pricing.pricing(path, ws)
		if !ok {
			return Model{}, false
		}
		m.Pricing = p
	}
	return m, true
}

// pricing converts either form; the per-token form wins when both are
// given.
func (p *pricingFile) pricing(path string, ws *warnings) (llm.Pricing, bool) {
	fields := []struct {
		name string
		v    *float64
	}{{"inputPer1K", p.InputPer1K}, {"cachedInputPer1K", p.CachedInputPer1K}, {"outputPer1K", p.OutputPer1K},
		{"promptPointsPer1k", p.PromptPointsPer1k}, {"completionPointsPer1k", p.CompletionPointsPer1k},
		{"perCallPoints", p.PerCallPoints}, {"priceRatio", p.PriceRatio}}
	for _, f := range fields {
		if f.v != nil && *f.v < 0 {
			ws.add(path, "pricing."+f.name, "negative (%g); file ignored", *f.v)
			return llm.Pricing{}, false
		}
	}
	direct := p.InputPer1K != nil || p.OutputPer1K != nil || p.CachedInputPer1K != nil
	points := p.PromptPointsPer1k != nil || p.CompletionPointsPer1k != nil
	if direct {
		if points {
			ws.add(path, "pricing", "both inputPer1K/outputPer1K and points given; the points are ignored")
		}
		return llm.Pricing{InputPer1K: deref(p.InputPer1K), CachedInputPer1K: deref(p.CachedInputPer1K),
			OutputPer1K: deref(p.OutputPer1K)}, true
	}
	ratio := 1.0
	if p.PriceRatio != nil && *p.PriceRatio > 0 {
		ratio = *p.PriceRatio
	}
	if p.PerCallPoints != nil && *p.PerCallPoints != 0 {
		ws.add(path, "pricing.perCallPoints", "a per-call price cannot be expressed; ignored")
	}
	if t := strings.TrimSpace(string(p.Tiers)); t != "" && t != "null" && t != "[]" {
		ws.add(path, "pricing.tiers", "tiered prices cannot be expressed; the base prices are used")
	}
	return llm.Pricing{
		InputPer1K:  deref(p.PromptPointsPer1k) / PointsPerUnit * ratio,
		OutputPer1K: deref(p.CompletionPointsPer1k) / PointsPerUnit * ratio,
	}, true
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// sortModels orders models by key.
func sortModels(ms []Model) {
	slices.SortFunc(ms, func(a, b Model) int { return strings.Compare(a.Key, b.Key) })
}

// knownKeys lists model keys for error messages.
func knownKeys(ms []Model) string {
	if len(ms) == 0 {
		return "no models are configured"
	}
	keys := make([]string, len(ms))
	for i, m := range ms {
		keys[i] = m.Key
	}
	return "known: " + strings.Join(keys, ", ")
}

// splitSpec splits provider:model at the first colon.
func splitSpec(spec string) (provider, model string, ok bool) {
	provider, model, ok = strings.Cut(spec, ":")
	return provider, model, ok && provider != "" && model != ""
}
