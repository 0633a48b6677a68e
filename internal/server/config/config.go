// Package config is the configuration of the aite server (PLATFORM_API
// § 7.5): a typed Config with every key of the table, loaded once at
// startup from, in rising precedence, the built-in defaults, the config
// file, the AITE_* environment variables and the command-line flags.
//
// The config file is the one named by Options.ConfigPath (the --config
// flag), else by $AITE_CONFIG, else ./aite.json when it exists; none is
// fine. It is strict JSON (no comments). Its server keys are checked: an
// unknown key or a value of the wrong type is an error naming the file and
// the key. The model keys of the same file (providers, defaultModel,
// modelsDir) belong to llm/models and are skipped here.
//
// One difference from the defaults of the § 7.5 table: everything lives
// under one data directory, the key "data" (flag --data, $AITE_DATA,
// default ./aite-data). The database is <data>/aite.db and the definition
// directories are <data>/agents, <data>/models, <data>/tools,
// <data>/skills, <data>/viewports and <data>/data, unless a key sets them
// explicitly. Relative paths are resolved against the working directory;
// Load returns absolute paths. The default address is 127.0.0.1:8080, so a
// fresh start listens on localhost only.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/server/auth"
)

// Defaults that differ from the zero value.
const (
	DefaultAddr                = "127.0.0.1:8080"
	DefaultData                = "aite-data"
	DefaultDBName              = "aite.db"
	DefaultEventFlushMs        = 200
	DefaultAgent               = "bookEditor"
	DefaultHeartbeatMs         = 15000
	DefaultFrontendTimeoutMs   = 300000
	DefaultMemoryK             = 20
	DefaultMaxPromptChars      = 8000
	DefaultDocumentMaxBytes    = 8 << 20
	DefaultChatTokenTTLSeconds = 86400
	DefaultReadHeaderTimeoutMs = 5000
	DefaultReadTimeoutMs       = 20000
	DefaultIdleTimeoutMs       = 30000
	DefaultStallTimeoutMs      = 30000
	DefaultAdminScope          = "aite:admin"
	DefaultJWKSMaxStaleSeconds = 3600
	// DefaultLeaseMs is cluster.leaseMs: how long the runs of a node that
	// stopped renewing its lease stay its own (PostgreSQL store).
	DefaultLeaseMs = 15000
	// MinLeaseMs is the smallest cluster.leaseMs.
	MinLeaseMs = 1000
	// MinChatTokenTTLSeconds is the smallest chatImageToken.ttlSeconds.
	MinChatTokenTTLSeconds = 60
	// FileName is the config file looked for in the working directory.
	FileName = "aite.json"
)

// Config is the server configuration. Field comments name the config key.
type Config struct {
	// File is the config file that was read ("" when none); not a key.
	File string `json:"-"`
	// Data is the directory everything lives in unless set explicitly (data).
	Data           string               `json:"data"`
	Server         ServerConfig         `json:"server"`
	Storage        StorageConfig        `json:"storage"`
	Dirs           DirsConfig           `json:"dirs"`
	Agents         AgentsConfig         `json:"agents"`
	SSE            SSEConfig            `json:"sse"`
	Tools          ToolsConfig          `json:"tools"`
	Memory         MemoryConfig         `json:"memory"`
	Skills         SkillsConfig         `json:"skills"`
	Documents      DocumentsConfig      `json:"documents"`
	Auth           AuthConfig           `json:"auth"`
	ChatImageToken ChatImageTokenConfig `json:"chatImageToken"`
	CORS           CORSConfig           `json:"cors"`
	Cluster        ClusterConfig        `json:"cluster"`

	origin map[string]string // key → where its value came from, for error messages
}

// ServerConfig is server.*.
type ServerConfig struct {
	Addr string `json:"addr"` // server.addr: host:port to listen on
	// AllowedHosts are the Host names answered besides the loopback ones
	// ("*": any); with auth on and none, any host is answered.
	AllowedHosts        StringList `json:"allowedHosts"`
	ReadHeaderTimeoutMs int        `json:"readHeaderTimeoutMs"` // a request's headers must arrive within
	ReadTimeoutMs       int        `json:"readTimeoutMs"`       // a whole request (headers and body) must arrive within
	IdleTimeoutMs       int        `json:"idleTimeoutMs"`       // a kept-alive connection may wait for its next request
}

// StorageConfig is storage.*.
type StorageConfig struct {
	// Store is storage.store: a postgres:// (or postgresql://) URL selects
	// PostgreSQL; anything else is the SQLite file (it then replaces
	// sqlitePath); "" keeps SQLite at sqlitePath.
	Store        string `json:"store"`
	SQLitePath   string `json:"sqlitePath"`   // storage.sqlitePath ("" = <data>/aite.db)
	EventFlushMs int    `json:"eventFlushMs"` // storage.eventFlushMs
}

// PostgresDSN returns storage.store when it names a PostgreSQL database,
// else "" (the SQLite file storage.sqlitePath).
func (c Config) PostgresDSN() string {
	if IsPostgres(c.Storage.Store) {
		return strings.TrimSpace(c.Storage.Store)
	}
	return ""
}

// IsPostgres reports whether a storage.store value names a PostgreSQL
// database (a postgres:// or postgresql:// URL) rather than a file.
func IsPostgres(store string) bool {
	s := strings.ToLower(strings.TrimSpace(store))
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// ClusterConfig is cluster.*: what the nodes sharing a PostgreSQL store
// need (SQLite has one node).
type ClusterConfig struct {
	// LeaseMs is cluster.leaseMs: a node renews its lease every third of
	// it; the runs of a node that stopped are aborted by another node
	// within LeaseMs plus a third.
	LeaseMs int `json:"leaseMs"`
	// Node is cluster.node: this node's name, unique among the live nodes
	// ("" = host name, process id and a random suffix).
	Node string `json:"node"`
}

// DirsConfig is dirs.*; "" means the directory of that name under Data.
type DirsConfig struct {
	Agents    string `json:"agents"`
	Models    string `json:"models"`
	Tools     string `json:"tools"`
	Skills    string `json:"skills"`
	Viewports string `json:"viewports"`
	Data      string `json:"data"` // the root of GET /data
}

// AgentsConfig is agents.*.
type AgentsConfig struct {
	Default string `json:"default"` // agents.default
}

// SSEConfig is sse.*.
type SSEConfig struct {
	HeartbeatMs int  `json:"heartbeatMs"` // sse.heartbeatMs
	DoneMarker  bool `json:"doneMarker"`  // sse.doneMarker
	// StallTimeoutMs: a client that takes no event for this long is given
	// up (the write deadline of one SSE frame).
	StallTimeoutMs int `json:"stallTimeoutMs"`
}

// ToolsConfig is tools.*.
type ToolsConfig struct {
	FrontendSubmitTimeoutMs int `json:"frontendSubmitTimeoutMs"` // tools.frontendSubmitTimeoutMs
}

// MemoryConfig is memory.*.
type MemoryConfig struct {
	K int `json:"k"` // memory.k: the runs of a chat the model sees
}

// SkillsConfig is skills.*.
type SkillsConfig struct {
	MaxPromptChars int `json:"maxPromptChars"` // skills.maxPromptChars
	// AllowInlineCode lets skills that declare inlineCode run code sent in
	// _skill_run_script_'s pythonCode (default false: only shipped scripts).
	AllowInlineCode bool `json:"allowInlineCode"`
}

// DocumentsConfig is documents.*.
type DocumentsConfig struct {
	MaxBytes int64 `json:"maxBytes"` // documents.maxBytes
}

// AuthConfig is auth.* (§ 8.1).
type AuthConfig struct {
	Enabled          bool   `json:"enabled"`
	PublicKeyPEM     string `json:"publicKeyPem"`
	JWKSURI          string `json:"jwksUri"`
	Issuer           string `json:"issuer"`
	JWKSCacheSeconds int    `json:"jwksCacheSeconds"`
	// AdminScope is the token scope (scope/scp claim) that sees every
	// user's chats, runs and documents.
	AdminScope string `json:"adminScope"`
	// JWKSMaxStaleSeconds: when the JWKS cannot be fetched, the keys last
	// fetched are used this much longer than jwksCacheSeconds.
	JWKSMaxStaleSeconds int `json:"jwksMaxStaleSeconds"`
}

// ChatImageTokenConfig is chatImageToken.* (§ 8.2).
type ChatImageTokenConfig struct {
	Secret string `json:"secret"`
	// PreviousSecrets: a JSON array of strings or a comma-separated string
	// in the file; comma-separated in the environment.
	PreviousSecrets     StringList `json:"previousSecrets"`
	TTLSeconds          int        `json:"ttlSeconds"`
	DataTokenValidation bool       `json:"dataTokenValidation"`
}

// CORSConfig is cors.*.
type CORSConfig struct {
	Enabled bool `json:"enabled"`
	// AllowedOrigins are the origins ("https://app.example") CORS allows and
	// cross-origin protection trusts; with CORS on and none, any origin.
	AllowedOrigins StringList `json:"allowedOrigins"`
}

// Default returns the built-in defaults. Paths are empty: Load derives
// them from Data.
func Default() Config {
	return Config{
		Data: DefaultData,
		Server: ServerConfig{Addr: DefaultAddr, ReadHeaderTimeoutMs: DefaultReadHeaderTimeoutMs,
			ReadTimeoutMs: DefaultReadTimeoutMs, IdleTimeoutMs: DefaultIdleTimeoutMs},
		Storage:        StorageConfig{EventFlushMs: DefaultEventFlushMs},
		Agents:         AgentsConfig{Default: DefaultAgent},
		SSE:            SSEConfig{HeartbeatMs: DefaultHeartbeatMs, StallTimeoutMs: DefaultStallTimeoutMs},
		Auth:           AuthConfig{AdminScope: DefaultAdminScope, JWKSMaxStaleSeconds: DefaultJWKSMaxStaleSeconds},
		Tools:          ToolsConfig{FrontendSubmitTimeoutMs: DefaultFrontendTimeoutMs},
		Memory:         MemoryConfig{K: DefaultMemoryK},
		Skills:         SkillsConfig{MaxPromptChars: DefaultMaxPromptChars},
		Documents:      DocumentsConfig{MaxBytes: DefaultDocumentMaxBytes},
		ChatImageToken: ChatImageTokenConfig{TTLSeconds: DefaultChatTokenTTLSeconds, DataTokenValidation: true},
		Cluster:        ClusterConfig{LeaseMs: DefaultLeaseMs},
	}
}

// Options say where the configuration comes from. The zero value uses the
// process environment and working directory and no flags.
type Options struct {
	// ConfigPath is the --config flag: a file that must exist. "" means
	// $AITE_CONFIG, else ./aite.json if present.
	ConfigPath string
	// Env looks up environment variables (nil = os.Getenv); an empty value
	// counts as unset.
	Env func(string) string
	// WorkDir resolves relative paths and holds ./aite.json ("" = the
	// current directory).
	WorkDir string
	// Flags are command-line values by config key ("server.addr",
	// "data", "dirs.agents", …); they beat everything else.
	Flags map[string]string
}

// Load builds the configuration: defaults, then the config file, then the
// environment, then opts.Flags; it derives the paths and validates the
// result. Errors name the key and where its value came from.
func Load(opts Options) (Config, error) {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	wd := opts.WorkDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return Config{}, fmt.Errorf("%w: working directory: %w", ErrInvalid, err)
		}
	}
	c := Default()
	c.origin = map[string]string{}
	path, err := findFile(opts.ConfigPath, env, wd)
	if err != nil {
		return Config{}, err
	}
	if path != "" {
		if err := c.readFile(path); err != nil {
			return Config{}, err
		}
		c.File = path
	}
	if err := c.applyEnv(env); err != nil {
		return Config{}, err
	}
	if err := c.applyFlags(opts.Flags); err != nil {
		return Config{}, err
	}
	c.resolvePaths(wd)
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// findFile returns the config file to read: the flag's, $AITE_CONFIG's
// (both must exist), else ./aite.json if it exists, else "".
func findFile(flag string, env func(string) string, wd string) (string, error) {
	explicit, source := flag, "--config"
	if explicit == "" {
		explicit, source = env("AITE_CONFIG"), "AITE_CONFIG"
	}
	if explicit != "" {
		p := absUnder(wd, explicit)
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("%w: config file %s (from %s): %w", ErrInvalid, p, source, err)
		}
		if st.IsDir() {
			return "", fmt.Errorf("%w: config file %s (from %s) is a directory", ErrInvalid, p, source)
		}
		return p, nil
	}
	p := filepath.Join(wd, FileName)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, nil
	}
	return "", nil
}

// resolvePaths fills the empty paths from Data and makes every path
// absolute.
func (c *Config) resolvePaths(wd string) {
	c.Data = absUnder(wd, c.Data)
	under := func(p *string, name string) {
		if strings.TrimSpace(*p) == "" {
			*p = filepath.Join(c.Data, name)
			return
		}
		*p = absUnder(wd, *p)
	}
	if st := strings.TrimSpace(c.Storage.Store); st != "" && !IsPostgres(st) {
		c.Storage.SQLitePath = st
	}
	under(&c.Storage.SQLitePath, DefaultDBName)
	d := &c.Dirs
	under(&d.Agents, "agents")
	under(&d.Models, "models")
	under(&d.Tools, "tools")
	under(&d.Skills, "skills")
	under(&d.Viewports, "viewports")
	under(&d.Data, "data")
}

// absUnder resolves p against dir unless it is absolute, and cleans it.
func absUnder(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// AuthConfig returns auth.* for the auth package.
func (c Config) AuthConfig() auth.Config {
	a := c.Auth
	return auth.Config{Enabled: a.Enabled, PublicKeyPEM: a.PublicKeyPEM, JWKSURI: a.JWKSURI, Issuer: a.Issuer,
		JWKSCacheSeconds: a.JWKSCacheSeconds, AdminScope: a.AdminScope, JWKSMaxStaleSeconds: a.JWKSMaxStaleSeconds}
}

// ChatTokenIssuer returns the chat image token issuer of chatImageToken.*
// (it issues nothing when the secret is empty).
func (c Config) ChatTokenIssuer(clock func() time.Time) *auth.Issuer {
	t := c.ChatImageToken
	return &auth.Issuer{Secret: t.Secret, PreviousSecrets: []string(t.PreviousSecrets),
		TTL: time.Duration(t.TTLSeconds) * time.Second, Clock: clock}
}

// Stall returns sse.stallTimeoutMs as a duration.
func (c Config) Stall() time.Duration { return ms(c.SSE.StallTimeoutMs) }

// HTTPTimeouts returns server.readHeaderTimeoutMs, server.readTimeoutMs and
// server.idleTimeoutMs as durations.
func (c Config) HTTPTimeouts() (readHeader, read, idle time.Duration) {
	s := c.Server
	return ms(s.ReadHeaderTimeoutMs), ms(s.ReadTimeoutMs), ms(s.IdleTimeoutMs)
}

// Heartbeat returns sse.heartbeatMs as a duration.
func (c Config) Heartbeat() time.Duration { return ms(c.SSE.HeartbeatMs) }

// Lease returns cluster.leaseMs as a duration.
func (c Config) Lease() time.Duration { return ms(c.Cluster.LeaseMs) }

// FrontendTimeout returns tools.frontendSubmitTimeoutMs as a duration.
func (c Config) FrontendTimeout() time.Duration { return ms(c.Tools.FrontendSubmitTimeoutMs) }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }
