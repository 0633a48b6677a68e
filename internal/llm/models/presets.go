package models

import (
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/llm/anthropic"
)

// Preset is a built-in provider.
type Preset struct {
	Key        string
	Config     ProviderConfig // BaseURL is the default base URL
	BaseURLEnv string         // the variable that overrides the base URL ("" = none)
	// EnvJSONSchema is the SupportsJSONSchema of models defined only by
	// AITE_MODEL for this provider.
	EnvJSONSchema bool
}

// ollamaDefaultHost is Ollama's address when OLLAMA_HOST is unset.
const ollamaDefaultHost = "http://localhost:11434"

// presets are the built-in providers, in display order.
var presets = []Preset{
	{Key: "openai", BaseURLEnv: "OPENAI_BASE_URL", EnvJSONSchema: true, Config: ProviderConfig{
		BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY",
		ReasoningStyle: "reasoning_effort", DefaultModel: "gpt-4o-mini"}},
	{Key: "ollama", BaseURLEnv: "OLLAMA_HOST", Config: ProviderConfig{BaseURL: ollamaDefaultHost + "/v1"}},
	{Key: "anthropic", BaseURLEnv: "ANTHROPIC_BASE_URL", Config: ProviderConfig{
		BaseURL: anthropic.DefaultBaseURL, APIKeyEnv: "ANTHROPIC_API_KEY", Protocol: ProtocolAnthropic,
		DefaultModel: "claude-sonnet-4-5"}},
	{Key: "openrouter", Config: ProviderConfig{BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"}},
	{Key: "deepseek", Config: ProviderConfig{BaseURL: "https://api.deepseek.com/v1", APIKeyEnv: "DEEPSEEK_API_KEY",
		DefaultModel: "deepseek-chat"}},
	{Key: "vllm", BaseURLEnv: "AITE_VLLM_BASE_URL", Config: ProviderConfig{BaseURL: "http://localhost:8000/v1"}},
	{Key: "lmstudio", BaseURLEnv: "AITE_LMSTUDIO_BASE_URL", Config: ProviderConfig{BaseURL: "http://localhost:1234/v1"}},
	{Key: "llamacpp", BaseURLEnv: "AITE_LLAMACPP_BASE_URL", Config: ProviderConfig{BaseURL: "http://localhost:8080/v1"}},
}

// Presets returns the built-in providers.
func Presets() []Preset {
	out := slices.Clone(presets)
	for i := range out {
		out[i].Config.Headers = maps.Clone(out[i].Config.Headers)
	}
	return out
}

func presetByKey(key string) (Preset, bool) {
	i := slices.IndexFunc(presets, func(p Preset) bool { return p.Key == key })
	if i < 0 {
		return Preset{}, false
	}
	return presets[i], true
}

// envName returns AITE_PROVIDER_<KEY>_<suffix>.
func envName(provider, suffix string) string {
	return "AITE_PROVIDER_" + strings.ReplaceAll(strings.ToUpper(provider), "-", "_") + "_" + suffix
}

// OllamaBaseURL turns an OLLAMA_HOST value into the base URL of Ollama's
// OpenAI-compatible API: a missing scheme becomes http, a missing port
// 11434 (for http), a missing host localhost, and /v1 is appended.
func OllamaBaseURL(host string) string {
	host = strings.TrimSpace(host)
	if host == "" {
		host = ollamaDefaultHost
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return strings.TrimRight(host, "/") + "/v1"
	}
	name, port := u.Hostname(), u.Port()
	if name == "" {
		name = "localhost"
	}
	if port == "" && u.Scheme == "http" {
		port = "11434"
	}
	u.Host = name
	if port != "" {
		u.Host = net.JoinHostPort(name, port)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(u.Path, "/v1") {
		u.Path += "/v1"
	}
	u.RawPath = ""
	return u.String()
}

// provider is a provider after merging preset, config file and
// environment. apiKey is a secret: never log or print it.
type provider struct {
	key        string
	cfg        ProviderConfig // merged; cfg.BaseURL is the effective base URL
	apiKey     string
	keyFrom    string // where apiKey came from: "env X" or "config file"
	keyEnv     string // the variable to set when the key is missing ("" = none needed)
	source     string // "builtin" or the config file path
	envJSON    bool   // Preset.EnvJSONSchema
	configured bool   // in the config file, or one of its variables is set
}

// mergeProvider applies a config entry (fromFile) over a preset (if any)
// and then the environment.
func mergeProvider(key string, fromFile *ProviderConfig, configPath string, env func(string) string) provider {
	p := provider{key: key, source: "builtin"}
	preset, isPreset := presetByKey(key)
	if isPreset {
		p.cfg = preset.Config
		p.cfg.Headers = maps.Clone(preset.Config.Headers)
		p.envJSON = preset.EnvJSONSchema
		if v := env(preset.BaseURLEnv); preset.BaseURLEnv != "" && v != "" {
			p.cfg.BaseURL = v
			if key == "ollama" {
				p.cfg.BaseURL = OllamaBaseURL(v)
			}
			p.configured = true
		}
	}
	if fromFile != nil {
		p.source, p.configured = configPath, true
		overlay(&p.cfg, *fromFile)
	}
	if v := env(envName(key, "BASE_URL")); v != "" {
		p.cfg.BaseURL, p.configured = v, true
	}
	p.resolveKey(env)
	if p.cfg.Protocol == "" {
		p.cfg.Protocol = ProtocolOpenAI
	}
	return p
}

// overlay copies the non-empty fields of f over c; the key source (apiKey,
// apiKeyEnv) is replaced as a pair.
func overlay(c *ProviderConfig, f ProviderConfig) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&c.BaseURL, f.BaseURL)
	if f.APIKey != "" || f.APIKeyEnv != "" {
		c.APIKey, c.APIKeyEnv = f.APIKey, f.APIKeyEnv
	}
	if len(f.Headers) > 0 {
		if c.Headers == nil {
			c.Headers = map[string]string{}
		}
		maps.Copy(c.Headers, f.Headers)
	}
	set(&c.Protocol, f.Protocol)
	set(&c.NewAPIPath, f.NewAPIPath)
	set(&c.ThinkingParam, f.ThinkingParam)
	set(&c.ReasoningStyle, f.ReasoningStyle)
	set(&c.DefaultModel, f.DefaultModel)
}

// resolveKey finds the API key: the AITE_PROVIDER_<KEY>_API_KEY override,
// the variable named by apiKeyEnv, the literal apiKey.
func (p *provider) resolveKey(env func(string) string) {
	override := envName(p.key, "API_KEY")
	p.keyEnv = p.cfg.APIKeyEnv
	switch {
	case env(override) != "":
		p.apiKey, p.keyFrom, p.configured = env(override), "env "+override, true
	case p.cfg.APIKeyEnv != "" && env(p.cfg.APIKeyEnv) != "":
		p.apiKey, p.keyFrom, p.configured = env(p.cfg.APIKeyEnv), "env "+p.cfg.APIKeyEnv, true
	case p.cfg.APIKey != "":
		p.apiKey, p.keyFrom = p.cfg.APIKey, "config file"
	}
}

// validate checks a merged provider; a problem that makes it unusable is
// returned as (field, message).
func (p *provider) validate() (field, msg string) {
	switch {
	case p.cfg.BaseURL == "":
		return "baseUrl", "missing"
	case !knownProtocol(p.cfg.Protocol):
		return "protocol", "unknown protocol " + quote(p.cfg.Protocol) + " (want " + protocolList + ")"
	case p.cfg.Protocol == ProtocolNewAPI && p.cfg.NewAPIPath == "":
		return "newApiPath", "missing (protocol " + ProtocolNewAPI + " needs it)"
	}
	if u, err := url.Parse(p.cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "baseUrl", quote(p.cfg.BaseURL) + " is not an http(s) URL"
	}
	return "", ""
}

// keyStatus describes the key without revealing it.
func (p *provider) keyStatus() string {
	switch {
	case p.apiKey != "":
		return "set (" + p.keyFrom + ")"
	case p.keyEnv != "":
		return "missing (set " + p.keyEnv + " or " + envName(p.key, "API_KEY") + ")"
	default:
		return "not needed"
	}
}

func quote(s string) string { return `"` + s + `"` }
