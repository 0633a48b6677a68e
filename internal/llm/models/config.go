package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Protocols of a provider or model.
const (
	ProtocolOpenAI    = "OPENAI"                   // POST <baseUrl>[/v1]/chat/completions (the default)
	ProtocolNewAPI    = "NEWAPI_OPENAI_COMPATIBLE" // POST <origin of baseUrl><newApiPath>
	ProtocolAnthropic = "ANTHROPIC"                // POST <baseUrl>[/v1]/messages: Anthropic's Messages API
)

// knownProtocol reports whether p is one of the protocols.
func knownProtocol(p string) bool {
	return p == ProtocolOpenAI || p == ProtocolNewAPI || p == ProtocolAnthropic
}

// protocolList names the protocols for error messages.
const protocolList = ProtocolOpenAI + ", " + ProtocolNewAPI + " or " + ProtocolAnthropic

// Config is the model part of the config file.
type Config struct {
	Providers    map[string]ProviderConfig `json:"providers,omitempty"`
	ModelsDir    string                    `json:"modelsDir,omitempty"`    // relative to the config file
	DefaultModel string                    `json:"defaultModel,omitempty"` // a model key or provider:model
	// EmbedModel is the embedding model for search by meaning: a model key
	// or provider:model (AITE_EMBED_MODEL wins).
	EmbedModel string `json:"embedModel,omitempty"`
}

// ProviderConfig is one OpenAI-compatible endpoint.
type ProviderConfig struct {
	BaseURL       string            `json:"baseUrl,omitempty"`
	APIKey        string            `json:"apiKey,omitempty"`    // a literal key; discouraged, prefer APIKeyEnv
	APIKeyEnv     string            `json:"apiKeyEnv,omitempty"` // the environment variable holding the key
	Headers       map[string]string `json:"headers,omitempty"`   // sent with every request
	Protocol      string            `json:"protocol,omitempty"`  // ProtocolOpenAI (default), ProtocolNewAPI or ProtocolAnthropic
	NewAPIPath    string            `json:"newApiPath,omitempty"`
	ThinkingParam string            `json:"thinkingParam,omitempty"` // e.g. "enable_thinking"
	// ReasoningStyle is "reasoning" (reasoning:{effort}, the default) or
	// "reasoning_effort" (OpenAI's form); see the openai adapter.
	ReasoningStyle string `json:"reasoningStyle,omitempty"`
	DefaultModel   string `json:"defaultModel,omitempty"` // the model id AITE_MODEL=<provider> means
}

// LoadOptions says where to look. The zero value uses the process
// environment and working directory.
type LoadOptions struct {
	ConfigPath string              // explicit config file (e.g. --config); an error if missing
	WorkDir    string              // where ./aite.json is looked for; "" = the current directory
	Env        func(string) string // environment lookup; nil = os.Getenv
	// HTTPClient is used by the providers and Check; nil = a new client.
	HTTPClient *http.Client
	// Logger receives debug records (keys masked); nil discards them.
	Logger *slog.Logger
	// CheckTimeout bounds one Check; 0 = 5s.
	CheckTimeout time.Duration
}

// DefaultCheckTimeout bounds a Check when LoadOptions.CheckTimeout is 0.
const DefaultCheckTimeout = 5 * time.Second

// fileConfig is the config file as read: Config plus the alternative
// "dirs": {"models"} of the server config. Providers are decoded one by one
// so that errors can name them.
type fileConfig struct {
	Providers    map[string]json.RawMessage `json:"providers"`
	ModelsDir    string                     `json:"modelsDir"`
	DefaultModel string                     `json:"defaultModel"`
	EmbedModel   string                     `json:"embedModel"`
	Dirs         struct {
		Models string `json:"models"`
	} `json:"dirs"`
}

// findConfig returns the config file to read ("" = none) and whether it was
// named explicitly.
func findConfig(opts LoadOptions, env func(string) string) (path string, explicit bool) {
	if opts.ConfigPath != "" {
		return opts.ConfigPath, true
	}
	if p := env("AITE_CONFIG"); p != "" {
		return p, true
	}
	for _, p := range []string{filepath.Join(opts.WorkDir, "aite.json"), userConfigPath(env)} {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, false
		}
	}
	return "", false
}

// userConfigPath is $XDG_CONFIG_HOME/aite/config.json, else
// $HOME/.config/aite/config.json (%AppData%\aite\config.json on Windows).
func userConfigPath(env func(string) string) string {
	dir := env("XDG_CONFIG_HOME")
	if dir == "" && runtime.GOOS == "windows" {
		dir = env("AppData")
	}
	if dir == "" {
		home := env("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "aite", "config.json")
}

// readConfig reads and decodes the config file. Unknown sections are
// ignored: the file is shared with the server's configuration.
func readConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%w: config file: %w", ErrConfig, err) // wraps fs.ErrNotExist when missing
	}
	var fc fileConfig
	if err := json.Unmarshal(data, &fc); err != nil {
		return Config{}, fmt.Errorf("%w: %s: %s", ErrConfig, path, describeJSONError(data, err, ""))
	}
	cfg := Config{ModelsDir: fc.ModelsDir, DefaultModel: fc.DefaultModel, EmbedModel: fc.EmbedModel}
	if cfg.ModelsDir == "" {
		cfg.ModelsDir = fc.Dirs.Models
	}
	for key, raw := range fc.Providers {
		var pc ProviderConfig
		if err := json.Unmarshal(raw, &pc); err != nil {
			return Config{}, fmt.Errorf("%w: %s: %s", ErrConfig, path, describeJSONError(raw, err, "providers."+key))
		}
		if cfg.Providers == nil {
			cfg.Providers = map[string]ProviderConfig{}
		}
		cfg.Providers[key] = pc
	}
	return cfg, nil
}

// describeJSONError names the field of a type error (below prefix, when
// not "") or the line of a syntax error.
func describeJSONError(data []byte, err error, prefix string) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if prefix != "" {
			field = strings.TrimSuffix(prefix+"."+field, ".")
		}
		if field == "" {
			return fmt.Sprintf("expected %s, found %s", te.Type, te.Value)
		}
		return fmt.Sprintf("%s: expected %s, found %s", field, te.Type, te.Value)
	case errors.As(err, &se):
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %s", line, se.Error())
	}
	return err.Error()
}

// resolveModelsDir returns the models directory and whether it was set
// explicitly (a missing explicit directory is worth a warning).
func resolveModelsDir(cfg Config, configPath, workDir string, env func(string) string) (string, bool) {
	base := workDir
	if configPath != "" {
		base = filepath.Dir(configPath)
	}
	if d := env("AITE_MODELS_DIR"); d != "" {
		return absUnder(workDir, d), true
	}
	if cfg.ModelsDir != "" {
		return absUnder(base, cfg.ModelsDir), true
	}
	return filepath.Join(base, "models"), false
}

// absUnder resolves p relative to dir unless it is absolute.
func absUnder(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
