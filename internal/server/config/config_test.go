package config

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// env is an injectable environment.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// load runs Load in a fresh working directory with e and flags; file, when
// not "", is written there as aite.json.
func load(t *testing.T, file string, e env, flags map[string]string) (Config, string, error) {
	t.Helper()
	wd := t.TempDir()
	if file != "" {
		require.NoError(t, os.WriteFile(filepath.Join(wd, FileName), []byte(file), 0o644))
	}
	c, err := Load(Options{WorkDir: wd, Env: e.get, Flags: flags})
	return c, wd, err
}

func TestDefaults(t *testing.T) {
	c, wd, err := load(t, "", nil, nil)
	require.NoError(t, err)
	data := filepath.Join(wd, DefaultData)
	require.Equal(t, "", c.File)
	require.Equal(t, data, c.Data)
	require.Equal(t, "127.0.0.1:8080", c.Server.Addr)
	require.Equal(t, filepath.Join(data, "aite.db"), c.Storage.SQLitePath)
	require.Equal(t, DirsConfig{Agents: filepath.Join(data, "agents"), Models: filepath.Join(data, "models"),
		Tools: filepath.Join(data, "tools"), Skills: filepath.Join(data, "skills"),
		Viewports: filepath.Join(data, "viewports"), Data: filepath.Join(data, "data")}, c.Dirs)
	require.Equal(t, 200, c.Storage.EventFlushMs)
	require.Equal(t, 15*time.Second, c.Heartbeat())
	require.Equal(t, 300*time.Second, c.FrontendTimeout())
	require.Equal(t, "bookEditor", c.Agents.Default)
	require.False(t, c.SSE.DoneMarker)
	require.Equal(t, 20, c.Memory.K)
	require.Equal(t, 8000, c.Skills.MaxPromptChars)
	require.Equal(t, int64(8388608), c.Documents.MaxBytes)
	require.False(t, c.Auth.Enabled)
	require.Equal(t, 86400, c.ChatImageToken.TTLSeconds)
	require.True(t, c.ChatImageToken.DataTokenValidation)
	require.False(t, c.CORS.Enabled)
	require.False(t, c.ChatTokenIssuer(nil).Enabled())
}

func TestPrecedence(t *testing.T) {
	file := `{
		"server": {"addr": "127.0.0.1:1"},
		"memory": {"k": 3},
		"sse": {"heartbeatMs": 100, "doneMarker": true},
		"dirs": {"agents": "file-agents"},
		"data": "file-data",
		"chatImageToken": {"previousSecrets": ["a", " b "]},
		"providers": {"openai": {"apiKeyEnv": "X"}}, "defaultModel": "m", "modelsDir": "ignored"
	}`
	tests := []struct {
		name  string
		env   env
		flags map[string]string
		addr  string
		k     int
		data  string
	}{
		{"file", nil, nil, "127.0.0.1:1", 3, "file-data"},
		{"env beats file", env{"AITE_ADDR": "127.0.0.1:2", "AITE_MEMORY_K": "4", "AITE_DATA": "env-data"}, nil, "127.0.0.1:2", 4, "env-data"},
		{"flag beats env", env{"AITE_ADDR": "127.0.0.1:2", "AITE_DATA": "env-data"},
			map[string]string{"server.addr": "127.0.0.1:3", "data": "flag-data"}, "127.0.0.1:3", 3, "flag-data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, wd, err := load(t, file, tt.env, tt.flags)
			require.NoError(t, err)
			require.Equal(t, filepath.Join(wd, FileName), c.File)
			require.Equal(t, tt.addr, c.Server.Addr)
			require.Equal(t, tt.k, c.Memory.K)
			require.Equal(t, 100, c.SSE.HeartbeatMs)
			require.True(t, c.SSE.DoneMarker)
			require.Equal(t, filepath.Join(wd, tt.data), c.Data)
			require.Equal(t, filepath.Join(wd, "file-agents"), c.Dirs.Agents, "an explicit dir is not moved by data")
			require.Equal(t, filepath.Join(wd, tt.data, "tools"), c.Dirs.Tools)
			require.Equal(t, filepath.Join(wd, tt.data, "aite.db"), c.Storage.SQLitePath)
			require.Equal(t, StringList{"a", "b"}, c.ChatImageToken.PreviousSecrets)
		})
	}
}

func TestEnvKeys(t *testing.T) {
	abs := t.TempDir()
	e := env{
		"AITE_DB": filepath.Join(abs, "x.db"), "AITE_EVENT_FLUSH_MS": "50", "AITE_AGENTS_DIR": "a", "AITE_MODELS_DIR": "m",
		"AITE_TOOLS_DIR": "t", "AITE_SKILLS_DIR": "s", "AITE_VIEWPORTS_DIR": "v", "AITE_DATA_DIR": "d",
		"AITE_DEFAULT_AGENT": "other", "AITE_SSE_HEARTBEAT_MS": "10", "AITE_SSE_DONE": "true",
		"AITE_FRONTEND_SUBMIT_TIMEOUT_MS": "7", "AITE_SKILLS_MAX_PROMPT_CHARS": "9", "AITE_DOCUMENTS_MAX_BYTES": "11",
		"AITE_CHAT_IMAGE_TOKEN_SECRET": "s1", "AITE_CHAT_IMAGE_TOKEN_PREVIOUS_SECRETS": "p1, ,p2",
		"AITE_CHAT_IMAGE_TOKEN_TTL_SECONDS": "60", "AITE_CHAT_IMAGE_TOKEN_DATA_TOKEN_VALIDATION": "false",
		"AITE_CORS_ENABLED": "1",
	}
	c, wd, err := load(t, "", e, nil)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(abs, "x.db"), c.Storage.SQLitePath)
	require.Equal(t, 50, c.Storage.EventFlushMs)
	require.Equal(t, DirsConfig{Agents: filepath.Join(wd, "a"), Models: filepath.Join(wd, "m"), Tools: filepath.Join(wd, "t"),
		Skills: filepath.Join(wd, "s"), Viewports: filepath.Join(wd, "v"), Data: filepath.Join(wd, "d")}, c.Dirs)
	require.Equal(t, "other", c.Agents.Default)
	require.Equal(t, 10, c.SSE.HeartbeatMs)
	require.True(t, c.SSE.DoneMarker)
	require.Equal(t, 7, c.Tools.FrontendSubmitTimeoutMs)
	require.Equal(t, 9, c.Skills.MaxPromptChars)
	require.Equal(t, int64(11), c.Documents.MaxBytes)
	iss := c.ChatTokenIssuer(nil)
	require.True(t, iss.Enabled())
	require.Equal(t, []string{"p1", "p2"}, iss.PreviousSecrets)
	require.Equal(t, time.Minute, iss.TTL)
	require.False(t, c.ChatImageToken.DataTokenValidation)
	require.True(t, c.CORS.Enabled)
}

func TestEveryKeyHasEnvAndSetter(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Keys() {
		require.NotEmpty(t, k.Env, k.Name)
		require.NotEmpty(t, k.Help, k.Name)
		require.NotNil(t, k.set, k.Name)
		require.False(t, seen[k.Env], "duplicate env %s", k.Env)
		seen[k.Env] = true
	}
}

func TestConfigFileSelection(t *testing.T) {
	wd := t.TempDir()
	named := filepath.Join(wd, "named.json")
	viaEnv := filepath.Join(wd, "env.json")
	require.NoError(t, os.WriteFile(filepath.Join(wd, FileName), []byte(`{"memory": {"k": 1}}`), 0o644))
	require.NoError(t, os.WriteFile(named, []byte(`{"memory": {"k": 2}}`), 0o644))
	require.NoError(t, os.WriteFile(viaEnv, []byte(`{"memory": {"k": 3}}`), 0o644))
	tests := []struct {
		name, flag string
		env        env
		want       int
		file       string
	}{
		{"./aite.json", "", nil, 1, filepath.Join(wd, FileName)},
		{"AITE_CONFIG", "", env{"AITE_CONFIG": "env.json"}, 3, viaEnv},
		{"--config beats AITE_CONFIG", named, env{"AITE_CONFIG": viaEnv}, 2, named},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Options{WorkDir: wd, ConfigPath: tt.flag, Env: tt.env.get})
			require.NoError(t, err)
			require.Equal(t, tt.want, c.Memory.K)
			require.Equal(t, tt.file, c.File)
		})
	}
	_, err := Load(Options{WorkDir: wd, ConfigPath: "missing.json", Env: env{}.get})
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorContains(t, err, "missing.json")
	require.ErrorContains(t, err, "--config")
	_, err = Load(Options{WorkDir: wd, Env: env{"AITE_CONFIG": "nope.json"}.get})
	require.ErrorContains(t, err, "AITE_CONFIG")
}

func TestBadValues(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		env   env
		flags map[string]string
		want  []string // fragments of the error
	}{
		{"negative ms in file", `{"sse": {"heartbeatMs": -5}}`, nil, nil, []string{"aite.json", "sse.heartbeatMs", "at least 1"}},
		{"negative ms in env", "", env{"AITE_EVENT_FLUSH_MS": "-1"}, nil, []string{"environment AITE_EVENT_FLUSH_MS", "storage.eventFlushMs"}},
		{"memory.k 0", `{"memory": {"k": 0}}`, nil, nil, []string{"memory.k", "at least 1 (got 0)"}},
		{"read timeout 0", `{"server": {"readTimeoutMs": 0}}`, nil, nil, []string{"server.readTimeoutMs", "at least 1"}},
		{"stall 0", "", env{"AITE_SSE_STALL_TIMEOUT_MS": "0"}, nil, []string{"sse.stallTimeoutMs", "at least 1"}},
		{"bad origin", `{"cors": {"allowedOrigins": ["app.example"]}}`, nil, nil, []string{"cors.allowedOrigins", "not an origin"}},
		{"memory.k 0 by flag", "", nil, map[string]string{"memory.k": "0"}, []string{"command line", "memory.k"}},
		{"frontend timeout 0", "", env{"AITE_FRONTEND_SUBMIT_TIMEOUT_MS": "0"}, nil, []string{"tools.frontendSubmitTimeoutMs"}},
		{"maxBytes 0", `{"documents": {"maxBytes": 0}}`, nil, nil, []string{"documents.maxBytes"}},
		{"not an integer", "", env{"AITE_MEMORY_K": "many"}, nil, []string{"AITE_MEMORY_K", "memory.k", `"many" is not an integer`}},
		{"not a boolean", "", env{"AITE_CORS_ENABLED": "yes"}, nil, []string{"cors.enabled", "not a boolean"}},
		{"wrong type in file", `{"memory": {"k": "20"}}`, nil, nil, []string{"aite.json", "memory.k", "want an integer, found string"}},
		{"wrong type string", `{"server": {"addr": 8080}}`, nil, nil, []string{"server.addr", "want a string"}},
		{"section not an object", `{"sse": 5}`, nil, nil, []string{"sse", "want an object"}},
		{"unknown key", `{"sse": {"heartbeat": 5}}`, nil, nil, []string{"aite.json", "sse.heartbeat", "unknown key"}},
		{"wrong case", `{"sse": {"heartbeatMS": 5}}`, nil, nil, []string{"sse.heartbeatMS", "did you mean sse.heartbeatMs?"}},
		{"unknown section", `{"server": {}, "srever": {}}`, nil, nil, []string{"srever", "unknown key"}},
		{"syntax error", "{\n\"memory\": {\"k\": 1,}\n}", nil, nil, []string{"aite.json", "line 2"}},
		{"comments are not JSON", "// c\n{}", nil, nil, []string{"not valid JSON at line 1"}},
		{"not an object", `[1]`, nil, nil, []string{"must hold a JSON object"}},
		{"bad previousSecrets", `{"chatImageToken": {"previousSecrets": 5}}`, nil, nil, []string{"chatImageToken.previousSecrets", "comma-separated"}},
		{"ttl below 60", `{"chatImageToken": {"ttlSeconds": 59}}`, nil, nil, []string{"chatImageToken.ttlSeconds", "at least 60"}},
		{"bad addr", "", nil, map[string]string{"server.addr": "localhost"}, []string{"server.addr", "host:port"}},
		{"bad port", "", nil, map[string]string{"server.addr": "localhost:99999"}, []string{"server.addr", "port"}},
		{"blank default agent", `{"agents": {"default": " "}}`, nil, nil, []string{"agents.default", "blank"}},
		{"unknown flag key", "", nil, map[string]string{"nope": "1"}, []string{"nope", "unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := load(t, tt.file, tt.env, tt.flags)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrInvalid)
			for _, w := range tt.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

func TestAuthCombos(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	require.NoError(t, err)
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	tests := []struct {
		name string
		env  env
		want string // the key named by the error; "" = valid
	}{
		{"off", env{"AITE_AUTH_ISSUER": "x"}, ""},
		{"on without a key source", env{"AITE_AUTH_ENABLED": "true"}, "auth.publicKeyPem"},
		{"on with a bad PEM", env{"AITE_AUTH_ENABLED": "true", "AITE_AUTH_PUBLIC_KEY_PEM": "nope"}, "auth.publicKeyPem"},
		{"on with a PEM", env{"AITE_AUTH_ENABLED": "true", "AITE_AUTH_PUBLIC_KEY_PEM": pemText}, ""},
		{"jwks without issuer", env{"AITE_AUTH_ENABLED": "true", "AITE_AUTH_JWKS_URI": "https://id.example/jwks",
			"AITE_AUTH_JWKS_CACHE_SECONDS": "60"}, "auth.issuer"},
		{"jwks complete", env{"AITE_AUTH_ENABLED": "true", "AITE_AUTH_JWKS_URI": "https://id.example/jwks",
			"AITE_AUTH_ISSUER": "https://id.example", "AITE_AUTH_JWKS_CACHE_SECONDS": "60"}, ""},
		{"jwks not http", env{"AITE_AUTH_ENABLED": "true", "AITE_AUTH_JWKS_URI": "ftp://id.example/jwks",
			"AITE_AUTH_ISSUER": "i", "AITE_AUTH_JWKS_CACHE_SECONDS": "60"}, "auth.jwksUri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := load(t, "", tt.env, nil)
			if tt.want == "" {
				require.NoError(t, err)
				require.Equal(t, tt.env["AITE_AUTH_ENABLED"] == "true", c.AuthConfig().Enabled)
				return
			}
			var ce *Error
			require.True(t, errors.As(err, &ce), "%v", err)
			require.Equal(t, tt.want, ce.Key)
			require.NotContains(t, err.Error(), "BEGIN", "the PEM is never quoted")
		})
	}
}

func TestValidateWithoutLoad(t *testing.T) {
	c := Default()
	require.ErrorContains(t, c.Validate(), "storage.sqlitePath: is blank", "Default leaves the paths to Load")
	c.Data, c.Storage.SQLitePath = "d", "d/aite.db"
	c.Dirs = DirsConfig{Agents: "a", Models: "m", Tools: "t", Skills: "s", Viewports: "v", Data: "d"}
	require.NoError(t, c.Validate())
	c.Memory.K = -1
	require.EqualError(t, c.Validate(), "config: memory.k: must be at least 1 (got -1)")
}

func TestStore(t *testing.T) {
	const dsn = "postgres://aite:secret@db.internal:5432/aite?sslmode=require"
	tests := []struct {
		name     string
		file     string
		env      env
		flags    map[string]string
		postgres string
		sqlite   string // relative to the working directory
	}{
		{"default: SQLite in the data directory", "", nil, nil, "", "aite-data/aite.db"},
		{"a file in the config", `{"storage": {"store": "var/x.db"}}`, nil, nil, "", "var/x.db"},
		{"a file beats sqlitePath", "", env{"AITE_STORE": "y.db", "AITE_DB": "z.db"}, nil, "", "y.db"},
		{"PostgreSQL from the config", `{"storage": {"store": "` + dsn + `"}}`, nil, nil, dsn, "aite-data/aite.db"},
		{"PostgreSQL from the environment", "", env{"AITE_STORE": " POSTGRESQL://h/db "}, nil, "POSTGRESQL://h/db", "aite-data/aite.db"},
		{"the flag beats the environment", "", env{"AITE_STORE": dsn}, map[string]string{"storage.store": "f.db"}, "", "f.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, wd, err := load(t, tt.file, tt.env, tt.flags)
			require.NoError(t, err)
			require.Equal(t, tt.postgres, c.PostgresDSN())
			require.Equal(t, filepath.Join(wd, tt.sqlite), c.Storage.SQLitePath)
		})
	}
}

// A store that is neither a PostgreSQL URL nor a file path is refused, not
// taken as the name of a new SQLite file.
func TestStoreMistyped(t *testing.T) {
	for value, want := range map[string]string{
		"postgress://aite:secret@db/aite": `"postgress://aite:xxxxx@db/aite" is not a PostgreSQL URL`,
		"mysql://db/aite":                 "is not a PostgreSQL URL",
		"mysql://aite:secret%zz@db/aite":  `"(unparsable URL)" is not a PostgreSQL URL`,
		"host=db dbname=aite":             "a key=value connection string is not accepted",
	} {
		_, _, err := load(t, "", env{"AITE_STORE": value}, nil)
		require.ErrorIs(t, err, ErrInvalid, value)
		require.ErrorContains(t, err, "storage.store", value)
		require.ErrorContains(t, err, want, value)
		require.NotContains(t, err.Error(), "secret", "the password is never quoted")
	}
}

func TestCluster(t *testing.T) {
	c, _, err := load(t, "", nil, nil)
	require.NoError(t, err)
	require.Equal(t, 15*time.Second, c.Lease())
	require.Empty(t, c.Cluster.Node)
	c, _, err = load(t, `{"cluster": {"leaseMs": 3000, "node": "web-1"}}`, env{"AITE_NODE": "web-2"}, nil)
	require.NoError(t, err)
	require.Equal(t, 3*time.Second, c.Lease())
	require.Equal(t, "web-2", c.Cluster.Node)
	_, _, err = load(t, "", env{"AITE_LEASE_MS": "999"}, nil)
	require.ErrorContains(t, err, "cluster.leaseMs")
	require.ErrorContains(t, err, "at least 1000")
}

// The hardening keys of issue 14: defaults and every source.
func TestSecurityKeys(t *testing.T) {
	wd := t.TempDir()
	c, err := Load(Options{WorkDir: wd, Env: env{}.get})
	require.NoError(t, err)
	readHeader, read, idle := c.HTTPTimeouts()
	require.Equal(t, []time.Duration{5 * time.Second, 20 * time.Second, 30 * time.Second}, []time.Duration{readHeader, read, idle})
	require.Equal(t, 30*time.Second, c.Stall())
	require.Empty(t, c.Server.AllowedHosts)
	require.False(t, c.Skills.AllowInlineCode)
	require.Equal(t, "aite:admin", c.AuthConfig().AdminScope)
	require.Equal(t, 3600, c.AuthConfig().JWKSMaxStaleSeconds)

	file := filepath.Join(wd, "aite.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"server": {"allowedHosts": ["books.example", "10.0.0.5"]},
		"cors": {"enabled": true, "allowedOrigins": "https://app.example, http://localhost:5173"},
		"skills": {"allowInlineCode": true}}`), 0o644))
	c, err = Load(Options{WorkDir: wd, Env: env{"AITE_AUTH_ADMIN_SCOPE": "books:admin"}.get})
	require.NoError(t, err)
	require.Equal(t, StringList{"books.example", "10.0.0.5"}, c.Server.AllowedHosts)
	require.Equal(t, StringList{"https://app.example", "http://localhost:5173"}, c.CORS.AllowedOrigins)
	require.True(t, c.Skills.AllowInlineCode)
	require.Equal(t, "books:admin", c.Auth.AdminScope)
}
