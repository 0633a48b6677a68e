package models

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/wire"
)

// SourceSpec is the Source of a model built by Resolve from a
// provider:model spec that no file or variable defines.
const SourceSpec = "spec"

// Registry holds the providers and models. It is immutable after Load,
// except for the cache of built providers, and safe for concurrent use.
type Registry struct {
	configPath string
	modelsDir  string
	providers  map[string]*provider
	problems   map[string]string // provider key → why it is unusable
	models     []Model           // sorted by key
	byKey      map[string]Model
	defSpec    string // the default's spec as written
	defFrom    string // "AITE_MODEL" or "defaultModel"
	def        Model
	defErr     error
	embedSpec  string // AITE_EMBED_MODEL, else the config file's embedModel
	embedFrom  string

	env          func(string) string
	httpClient   *http.Client
	log          *slog.Logger
	checkTimeout time.Duration

	mu    sync.Mutex
	built map[string]llm.Provider // by provider key and protocol
}

// Load reads the configuration. The error is for a config file that is
// named but missing, unreadable or malformed; every other problem is a
// Warning and loading goes on.
func Load(opts LoadOptions) (*Registry, []Warning, error) {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	if opts.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, fmt.Errorf("%w: working directory: %w", ErrConfig, err)
		}
		opts.WorkDir = wd
	}
	r := &Registry{env: env, httpClient: opts.HTTPClient, log: opts.Logger, checkTimeout: opts.CheckTimeout,
		providers: map[string]*provider{}, problems: map[string]string{}, byKey: map[string]Model{},
		built: map[string]llm.Provider{}}
	if r.httpClient == nil {
		r.httpClient = wire.NewHTTPClient()
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.checkTimeout <= 0 {
		r.checkTimeout = DefaultCheckTimeout
	}
	var cfg Config
	path, _ := findConfig(opts, env)
	if path != "" {
		c, err := readConfig(path)
		if err != nil {
			return nil, nil, err // a file found by the search exists, so any error is real
		}
		cfg, r.configPath = c, path
	}
	var ws warnings
	r.loadProviders(cfg, &ws)
	dir, dirExplicit := resolveModelsDir(cfg, r.configPath, opts.WorkDir, env)
	r.modelsDir = dir
	r.addModels(readModelsDir(dir, dirExplicit, &ws), &ws)
	r.loadDefault(cfg, &ws)
	r.embedSpec, r.embedFrom = strings.TrimSpace(r.env("AITE_EMBED_MODEL")), "AITE_EMBED_MODEL"
	if r.embedSpec == "" {
		r.embedSpec, r.embedFrom = strings.TrimSpace(cfg.EmbedModel), "embedModel"
	}
	r.logLoaded()
	return r, ws, nil
}

// loadProviders merges presets, config file entries and the environment.
func (r *Registry) loadProviders(cfg Config, ws *warnings) {
	for _, p := range presets {
		r.setProvider(mergeProvider(p.Key, nil, "", r.env), ws)
	}
	for _, key := range slices.Sorted(maps.Keys(cfg.Providers)) {
		fc := cfg.Providers[key]
		if strings.TrimSpace(key) == "" || strings.Contains(key, ":") {
			ws.add(r.configPath, "providers", "invalid provider key %q (empty or with a colon); ignored", key)
			continue
		}
		r.setProvider(mergeProvider(key, &fc, r.configPath, r.env), ws)
	}
}

func (r *Registry) setProvider(p provider, ws *warnings) {
	r.providers[p.key] = &p
	delete(r.problems, p.key)
	if field, msg := p.validate(); field != "" {
		file := ""
		if p.source != "builtin" {
			file = p.source
		}
		ws.add(file, "providers."+p.key+"."+field, "%s; the provider cannot be used", msg)
		r.problems[p.key] = field + ": " + msg
	}
}

// addModels registers file models in order: unknown providers are
// rejected, the first of duplicate keys wins.
func (r *Registry) addModels(ms []Model, ws *warnings) {
	for _, m := range ms {
		p, ok := r.providers[m.Provider]
		if !ok {
			ws.add(m.Source, "provider", "%v %q (%s); file ignored", ErrUnknownProvider, m.Provider, r.knownProviders())
			continue
		}
		if m.Protocol == ProtocolNewAPI && p.cfg.NewAPIPath == "" {
			ws.add(m.Source, "protocol", "%s needs providers.%s.newApiPath, which is not set; file ignored", ProtocolNewAPI, m.Provider)
			continue
		}
		if prev, dup := r.byKey[m.Key]; dup {
			ws.add(m.Source, "key", "duplicate key %q, already defined by %s; file ignored", m.Key, prev.Source)
			continue
		}
		r.add(m)
	}
}

func (r *Registry) add(m Model) {
	r.byKey[m.Key] = m
	r.models = append(r.models, m)
	sortModels(r.models)
}

// loadDefault resolves AITE_MODEL, else the config file's defaultModel.
func (r *Registry) loadDefault(cfg Config, ws *warnings) {
	spec, from, source, file := strings.TrimSpace(r.env("AITE_MODEL")), "AITE_MODEL", SourceEnv, ""
	if spec == "" {
		spec, from, source, file = strings.TrimSpace(cfg.DefaultModel), "defaultModel", SourceConfig, r.configPath
	}
	if spec == "" {
		r.defErr = ErrNoModel
		return
	}
	r.defSpec, r.defFrom = spec, from
	m, err := r.resolve(spec, source)
	if err != nil {
		r.defErr = fmt.Errorf("%s=%q: %w", from, spec, err)
		ws.add(file, from, "%v", err)
		return
	}
	if _, known := r.byKey[m.Key]; !known {
		r.add(m)
	}
	r.def = m
}

// Resolve finds the model a spec names: a model key; provider:model (split
// at the first colon; a models file with that provider and modelId
// supplies the capabilities, else conservative ones as for AITE_MODEL and
// Source SourceSpec); or a provider name with a defaultModel.
func (r *Registry) Resolve(spec string) (Model, error) {
	return r.resolve(strings.TrimSpace(spec), SourceSpec)
}

func (r *Registry) resolve(spec, source string) (Model, error) {
	if m, ok := r.byKey[spec]; ok {
		return m, nil
	}
	prov, id, ok := splitSpec(spec)
	if !ok {
		p, isProvider := r.providers[spec]
		switch {
		case !isProvider:
			return Model{}, fmt.Errorf("%w %q (%s; or write provider:model, e.g. openai:gpt-4o-mini)",
				ErrUnknownModel, spec, knownKeys(r.models))
		case p.cfg.DefaultModel == "":
			return Model{}, fmt.Errorf("%w: provider %q has no defaultModel; write %s:<model>", ErrUnknownModel, spec, spec)
		}
		prov, id = spec, p.cfg.DefaultModel
	}
	p, ok := r.providers[prov]
	if !ok {
		return Model{}, fmt.Errorf("%w %q in %q (%s)", ErrUnknownProvider, prov, spec, r.knownProviders())
	}
	for _, m := range r.models {
		if m.Provider == prov && m.ModelID == id {
			return m, nil
		}
	}
	return Model{Key: prov + ":" + id, Provider: prov, ModelID: id, SupportsTools: true,
		SupportsJSONSchema: p.envJSON, Source: source}, nil
}

func (r *Registry) knownProviders() string {
	return "known: " + strings.Join(slices.Sorted(maps.Keys(r.providers)), ", ")
}

// Models returns every model, sorted by key.
func (r *Registry) Models() []Model { return slices.Clone(r.models) }

// Model returns the model with this key.
func (r *Registry) Model(key string) (Model, error) {
	if m, ok := r.byKey[key]; ok {
		return m, nil
	}
	return Model{}, fmt.Errorf("%w %q (%s)", ErrUnknownModel, key, knownKeys(r.models))
}

// Default returns the default model: AITE_MODEL, else the config file's
// defaultModel. With neither the error is ErrNoModel, whose message says
// how to configure one.
func (r *Registry) Default() (Model, error) { return r.def, r.defErr }

// DefaultSpec returns the default model as written and where ("AITE_MODEL"
// or "defaultModel"); both "" when none is set.
func (r *Registry) DefaultSpec() (spec, from string) { return r.defSpec, r.defFrom }

// ConfigPath returns the config file read, or "" when there was none.
func (r *Registry) ConfigPath() string { return r.configPath }

// ModelsDir returns the directory the models files were read from.
func (r *Registry) ModelsDir() string { return r.modelsDir }

// ProviderInfo describes a provider without its key.
type ProviderInfo struct {
	Key          string   `json:"key"`
	BaseURL      string   `json:"baseUrl"`
	Protocol     string   `json:"protocol"`
	KeyStatus    string   `json:"keyStatus"` // "set (env X)", "set (config file)", "missing (set X …)", "not needed"
	KeySet       bool     `json:"keySet"`
	KeyEnv       string   `json:"keyEnv,omitempty"`  // the variable apiKeyEnv names
	Headers      []string `json:"headers,omitempty"` // header names; values are not shown
	DefaultModel string   `json:"defaultModel,omitempty"`
	Source       string   `json:"source"`            // "builtin" or the config file
	Problem      string   `json:"problem,omitempty"` // why it cannot be used
}

// Providers describes the providers in use: those of the config file, those
// whose variables are set, and those a model names; sorted by key.
func (r *Registry) Providers() []ProviderInfo {
	used := map[string]bool{}
	for _, m := range r.models {
		used[m.Provider] = true
	}
	var out []ProviderInfo
	for _, key := range slices.Sorted(maps.Keys(r.providers)) {
		if p := r.providers[key]; p.configured || used[key] {
			out = append(out, r.info(p))
		}
	}
	return out
}

// ProviderInfo describes one provider (a built-in preset or a configured
// one).
func (r *Registry) ProviderInfo(key string) (ProviderInfo, error) {
	p, ok := r.providers[key]
	if !ok {
		return ProviderInfo{}, fmt.Errorf("%w %q (%s)", ErrUnknownProvider, key, r.knownProviders())
	}
	return r.info(p), nil
}

func (r *Registry) info(p *provider) ProviderInfo {
	names := slices.Collect(maps.Keys(p.cfg.Headers))
	sort.Strings(names)
	return ProviderInfo{Key: p.key, BaseURL: p.cfg.BaseURL, Protocol: p.cfg.Protocol, KeyStatus: p.keyStatus(),
		KeySet: p.apiKey != "", KeyEnv: p.cfg.APIKeyEnv, Headers: names, DefaultModel: p.cfg.DefaultModel,
		Source: p.source, Problem: r.problems[p.key]}
}

// logLoaded logs the configuration at debug level, keys masked.
func (r *Registry) logLoaded() {
	ctx := context.Background()
	if !r.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	r.log.Debug("models: loaded", "config", r.configPath, "modelsDir", r.modelsDir, "models", len(r.models),
		"default", r.def.Key)
	for _, key := range slices.Sorted(maps.Keys(r.providers)) {
		p := r.providers[key]
		if !p.configured {
			continue
		}
		r.log.Debug("models: provider", "key", key, "baseUrl", p.cfg.BaseURL, "apiKey", Mask(p.apiKey),
			"keyFrom", p.keyFrom, "headers", RedactHeaders(p.cfg.Headers), "source", p.source)
	}
}
