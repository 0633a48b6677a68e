package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Key describes one configuration key.
type Key struct {
	Name    string // the dotted key of the config file, e.g. "sse.heartbeatMs"
	Env     string // the environment variable, e.g. "AITE_SSE_HEARTBEAT_MS"
	Default string // the default as shown in help texts
	Help    string // one line

	set func(c *Config, v string) error
}

// keys is the table of every server key, in the order of § 7.5.
var keys = []Key{
	{Name: "data", Env: "AITE_DATA", Default: "./" + DefaultData,
		Help: "the directory the database and all the directories below live in, unless set explicitly", set: str(func(c *Config) *string { return &c.Data })},
	{Name: "server.addr", Env: "AITE_ADDR", Default: DefaultAddr,
		Help: "host:port to listen on (:8080 listens on every interface)", set: str(func(c *Config) *string { return &c.Server.Addr })},
	{Name: "storage.store", Env: "AITE_STORE",
		Help: "postgres://user:password@host/db for PostgreSQL (several nodes may share it), else a SQLite file like storage.sqlitePath", set: str(func(c *Config) *string { return &c.Storage.Store })},
	{Name: "server.allowedHosts", Env: "AITE_ALLOWED_HOSTS",
		Help: "Host names answered besides localhost, 127.0.0.1 and ::1 (comma-separated; * = any; with auth on and none set, any)",
		set:  list(func(c *Config) *StringList { return &c.Server.AllowedHosts })},
	{Name: "server.readHeaderTimeoutMs", Env: "AITE_READ_HEADER_TIMEOUT_MS", Default: strconv.Itoa(DefaultReadHeaderTimeoutMs),
		Help: "a request's headers must arrive within this time", set: integer(func(c *Config) *int { return &c.Server.ReadHeaderTimeoutMs })},
	{Name: "server.readTimeoutMs", Env: "AITE_READ_TIMEOUT_MS", Default: strconv.Itoa(DefaultReadTimeoutMs),
		Help: "a whole request, body included, must arrive within this time", set: integer(func(c *Config) *int { return &c.Server.ReadTimeoutMs })},
	{Name: "server.idleTimeoutMs", Env: "AITE_IDLE_TIMEOUT_MS", Default: strconv.Itoa(DefaultIdleTimeoutMs),
		Help: "a kept-alive connection is closed after waiting this long for its next request", set: integer(func(c *Config) *int { return &c.Server.IdleTimeoutMs })},
	{Name: "storage.sqlitePath", Env: "AITE_DB", Default: "<data>/" + DefaultDBName,
		Help: "the SQLite database file", set: str(func(c *Config) *string { return &c.Storage.SQLitePath })},
	{Name: "storage.eventFlushMs", Env: "AITE_EVENT_FLUSH_MS", Default: strconv.Itoa(DefaultEventFlushMs),
		Help: "no effect (kept for compatibility): every run event is stored before it is sent", set: integer(func(c *Config) *int { return &c.Storage.EventFlushMs })},
	dirKey("agents", "agent definitions (*.json)", func(c *Config) *string { return &c.Dirs.Agents }),
	dirKey("models", "model files (<key>.json)", func(c *Config) *string { return &c.Dirs.Models }),
	dirKey("tools", "tool files (*.backend, *.frontend, *.action)", func(c *Config) *string { return &c.Dirs.Tools }),
	dirKey("skills", "skills (<id>/SKILL.md)", func(c *Config) *string { return &c.Dirs.Skills }),
	dirKey("viewports", "viewports (<key>.html, <key>.qlc)", func(c *Config) *string { return &c.Dirs.Viewports }),
	dirKey("data", "the files GET /api/ap/data serves", func(c *Config) *string { return &c.Dirs.Data }),
	{Name: "agents.default", Env: "AITE_DEFAULT_AGENT", Default: DefaultAgent,
		Help: "the agent of a query without agentKey", set: str(func(c *Config) *string { return &c.Agents.Default })},
	{Name: "sse.heartbeatMs", Env: "AITE_SSE_HEARTBEAT_MS", Default: strconv.Itoa(DefaultHeartbeatMs),
		Help: "SSE heartbeat interval", set: integer(func(c *Config) *int { return &c.SSE.HeartbeatMs })},
	{Name: "sse.doneMarker", Env: "AITE_SSE_DONE", Default: "false",
		Help: "end streams with data:[DONE]", set: boolean(func(c *Config) *bool { return &c.SSE.DoneMarker })},
	{Name: "sse.stallTimeoutMs", Env: "AITE_SSE_STALL_TIMEOUT_MS", Default: strconv.Itoa(DefaultStallTimeoutMs),
		Help: "a client that takes no event for this long is disconnected (it may reattach)", set: integer(func(c *Config) *int { return &c.SSE.StallTimeoutMs })},
	{Name: "tools.frontendSubmitTimeoutMs", Env: "AITE_FRONTEND_SUBMIT_TIMEOUT_MS", Default: strconv.Itoa(DefaultFrontendTimeoutMs),
		Help: "how long a frontend tool waits for /submit", set: integer(func(c *Config) *int { return &c.Tools.FrontendSubmitTimeoutMs })},
	{Name: "memory.k", Env: "AITE_MEMORY_K", Default: strconv.Itoa(DefaultMemoryK),
		Help: "how many earlier runs of a chat the model sees", set: integer(func(c *Config) *int { return &c.Memory.K })},
	{Name: "skills.maxPromptChars", Env: "AITE_SKILLS_MAX_PROMPT_CHARS", Default: strconv.Itoa(DefaultMaxPromptChars),
		Help: "skill prompts are cut at this many characters", set: integer(func(c *Config) *int { return &c.Skills.MaxPromptChars })},
	{Name: "skills.allowInlineCode", Env: "AITE_SKILLS_ALLOW_INLINE_CODE", Default: "false",
		Help: "run inline Python (pythonCode) for skills that declare inlineCode: true", set: boolean(func(c *Config) *bool { return &c.Skills.AllowInlineCode })},
	{Name: "documents.maxBytes", Env: "AITE_DOCUMENTS_MAX_BYTES", Default: strconv.Itoa(DefaultDocumentMaxBytes),
		Help: "largest document POST /documents accepts", set: integer64(func(c *Config) *int64 { return &c.Documents.MaxBytes })},
	{Name: "auth.enabled", Env: "AITE_AUTH_ENABLED", Default: "false",
		Help: "require an RS256 Bearer JWT on every /api/ap request", set: boolean(func(c *Config) *bool { return &c.Auth.Enabled })},
	{Name: "auth.publicKeyPem", Env: "AITE_AUTH_PUBLIC_KEY_PEM",
		Help: "PEM text of the RSA public key that signs API tokens", set: str(func(c *Config) *string { return &c.Auth.PublicKeyPEM })},
	{Name: "auth.jwksUri", Env: "AITE_AUTH_JWKS_URI",
		Help: "JWKS address (with auth.issuer and auth.jwksCacheSeconds)", set: str(func(c *Config) *string { return &c.Auth.JWKSURI })},
	{Name: "auth.issuer", Env: "AITE_AUTH_ISSUER",
		Help: "required iss claim", set: str(func(c *Config) *string { return &c.Auth.Issuer })},
	{Name: "auth.jwksCacheSeconds", Env: "AITE_AUTH_JWKS_CACHE_SECONDS",
		Help: "how long a fetched JWKS is used", set: integer(func(c *Config) *int { return &c.Auth.JWKSCacheSeconds })},
	{Name: "auth.jwksMaxStaleSeconds", Env: "AITE_AUTH_JWKS_MAX_STALE_SECONDS", Default: strconv.Itoa(DefaultJWKSMaxStaleSeconds),
		Help: "while the JWKS cannot be fetched, the last keys are used this much longer", set: integer(func(c *Config) *int { return &c.Auth.JWKSMaxStaleSeconds })},
	{Name: "auth.adminScope", Env: "AITE_AUTH_ADMIN_SCOPE", Default: DefaultAdminScope,
		Help: "the token scope that sees every user's chats, runs and documents", set: str(func(c *Config) *string { return &c.Auth.AdminScope })},
	{Name: "chatImageToken.secret", Env: "AITE_CHAT_IMAGE_TOKEN_SECRET",
		Help: "HS256 secret of chat image tokens (none: no tokens)", set: str(func(c *Config) *string { return &c.ChatImageToken.Secret })},
	{Name: "chatImageToken.previousSecrets", Env: "AITE_CHAT_IMAGE_TOKEN_PREVIOUS_SECRETS",
		Help: "older secrets still accepted (comma-separated)", set: func(c *Config, v string) error {
			c.ChatImageToken.PreviousSecrets = splitCSV(v)
			return nil
		}},
	{Name: "chatImageToken.ttlSeconds", Env: "AITE_CHAT_IMAGE_TOKEN_TTL_SECONDS", Default: strconv.Itoa(DefaultChatTokenTTLSeconds),
		Help: "chat image token lifetime (at least 60)", set: integer(func(c *Config) *int { return &c.ChatImageToken.TTLSeconds })},
	{Name: "chatImageToken.dataTokenValidation", Env: "AITE_CHAT_IMAGE_TOKEN_DATA_TOKEN_VALIDATION", Default: "true",
		Help: "GET /data accepts a chat image token instead of a Bearer token", set: boolean(func(c *Config) *bool { return &c.ChatImageToken.DataTokenValidation })},
	{Name: "cors.enabled", Env: "AITE_CORS_ENABLED", Default: "false",
		Help: "answer CORS preflights and add CORS headers on /api/**", set: boolean(func(c *Config) *bool { return &c.CORS.Enabled })},
	{Name: "cluster.leaseMs", Env: "AITE_LEASE_MS", Default: strconv.Itoa(DefaultLeaseMs),
		Help: "PostgreSQL store: the runs of a node that stopped are aborted by another node within this plus a third", set: integer(func(c *Config) *int { return &c.Cluster.LeaseMs })},
	{Name: "cluster.node", Env: "AITE_NODE", Default: "<host>-<pid>-<random>",
		Help: "PostgreSQL store: this node's name, unique among the live nodes", set: str(func(c *Config) *string { return &c.Cluster.Node })},
	{Name: "cors.allowedOrigins", Env: "AITE_CORS_ALLOWED_ORIGINS",
		Help: "origins CORS allows and cross-origin protection trusts (comma-separated; none with cors.enabled: any)",
		set:  list(func(c *Config) *StringList { return &c.CORS.AllowedOrigins })},
}

// modelKeys are the top-level keys of the shared config file that
// llm/models reads; the server ignores them.
var modelKeys = map[string]bool{"providers": true, "defaultModel": true, "modelsDir": true}

// Keys returns the table of every server key (for help texts).
func Keys() []Key {
	out := make([]Key, len(keys))
	copy(out, keys)
	return out
}

func dirKey(name, help string, field func(c *Config) *string) Key {
	return Key{Name: "dirs." + name, Env: "AITE_" + strings.ToUpper(name) + "_DIR", Default: "<data>/" + name,
		Help: help, set: str(field)}
}

func lookupKey(name string) (Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// applyEnv applies every AITE_* variable that is set.
func (c *Config) applyEnv(env func(string) string) error {
	for _, k := range keys {
		v := env(k.Env)
		if v == "" {
			continue
		}
		if err := c.set(k, v, "environment "+k.Env); err != nil {
			return err
		}
	}
	return nil
}

// applyFlags applies the command-line values, in the order of the table.
func (c *Config) applyFlags(flags map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if _, ok := lookupKey(name); !ok {
			return &Error{Key: name, Source: "command line", Reason: "unknown key"}
		}
	}
	for _, k := range keys {
		if v, ok := flags[k.Name]; ok {
			if err := c.set(k, v, "command line"); err != nil {
				return err
			}
		}
	}
	return nil
}

// set parses v into key k and records where it came from.
func (c *Config) set(k Key, v, source string) error {
	if err := k.set(c, strings.TrimSpace(v)); err != nil {
		return &Error{Key: k.Name, Source: source, Reason: err.Error()}
	}
	c.setOrigin(k.Name, source)
	return nil
}

func (c *Config) setOrigin(key, source string) {
	if c.origin == nil {
		c.origin = map[string]string{}
	}
	c.origin[key] = source
}

func str(field func(c *Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error {
		*field(c) = v
		return nil
	}
}

func integer(field func(c *Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		*field(c) = n
		return nil
	}
}

func integer64(field func(c *Config) *int64) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		*field(c) = n
		return nil
	}
}

func list(field func(c *Config) *StringList) func(*Config, string) error {
	return func(c *Config, v string) error {
		*field(c) = splitCSV(v)
		return nil
	}
}

func boolean(field func(c *Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not a boolean (true or false)", v)
		}
		*field(c) = b
		return nil
	}
}

// splitCSV splits a comma-separated list, dropping blank entries.
func splitCSV(v string) StringList {
	var out StringList
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
