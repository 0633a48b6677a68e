package config

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/server/auth"
)

// ErrInvalid is wrapped by every error of Load and Validate.
var ErrInvalid = errors.New("invalid server configuration")

// Error is a configuration problem with one key.
type Error struct {
	Key    string // the config key ("memory.k"), or "" for the file as a whole
	Source string // the file path, "environment AITE_X", "command line", or ""
	Reason string
}

// Error formats "config: <source>: <key>: <reason>", leaving out the empty
// parts.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	if e.Source != "" {
		b.WriteString(e.Source + ": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *Error) Unwrap() error { return ErrInvalid }

// Validate checks every value; the error names the first bad key and,
// after Load, where its value came from.
func (c Config) Validate() error {
	if err := checkAddr(c.Server.Addr); err != nil {
		return c.fail("server.addr", err.Error())
	}
	if reason := storeProblem(c.Storage.Store); reason != "" {
		return c.fail("storage.store", reason)
	}
	positive := []struct {
		key string
		v   int64
	}{
		{"storage.eventFlushMs", int64(c.Storage.EventFlushMs)},
		{"sse.heartbeatMs", int64(c.SSE.HeartbeatMs)},
		{"sse.stallTimeoutMs", int64(c.SSE.StallTimeoutMs)},
		{"server.readHeaderTimeoutMs", int64(c.Server.ReadHeaderTimeoutMs)},
		{"server.readTimeoutMs", int64(c.Server.ReadTimeoutMs)},
		{"server.idleTimeoutMs", int64(c.Server.IdleTimeoutMs)},
		{"tools.frontendSubmitTimeoutMs", int64(c.Tools.FrontendSubmitTimeoutMs)},
		{"memory.k", int64(c.Memory.K)},
		{"skills.maxPromptChars", int64(c.Skills.MaxPromptChars)},
		{"documents.maxBytes", c.Documents.MaxBytes},
	}
	for _, p := range positive {
		if p.v < 1 {
			return c.fail(p.key, fmt.Sprintf("must be at least 1 (got %d)", p.v))
		}
	}
	if strings.TrimSpace(c.Agents.Default) == "" {
		return c.fail("agents.default", "is blank")
	}
	paths := []struct{ key, v string }{
		{"data", c.Data}, {"storage.sqlitePath", c.Storage.SQLitePath},
		{"dirs.agents", c.Dirs.Agents}, {"dirs.models", c.Dirs.Models}, {"dirs.tools", c.Dirs.Tools},
		{"dirs.skills", c.Dirs.Skills}, {"dirs.viewports", c.Dirs.Viewports}, {"dirs.data", c.Dirs.Data},
	}
	for _, p := range paths {
		if strings.TrimSpace(p.v) == "" {
			return c.fail(p.key, "is blank")
		}
	}
	if c.Cluster.LeaseMs < MinLeaseMs {
		return c.fail("cluster.leaseMs", fmt.Sprintf("must be at least %d (got %d)", MinLeaseMs, c.Cluster.LeaseMs))
	}
	cop := http.NewCrossOriginProtection()
	for _, o := range c.CORS.AllowedOrigins {
		if err := cop.AddTrustedOrigin(o); o != "*" && err != nil {
			return c.fail("cors.allowedOrigins", fmt.Sprintf("%q is not an origin like https://app.example (%v)", o, err))
		}
	}
	if ttl := c.ChatImageToken.TTLSeconds; ttl < MinChatTokenTTLSeconds {
		return c.fail("chatImageToken.ttlSeconds", fmt.Sprintf("must be at least %d seconds (got %d)", MinChatTokenTTLSeconds, ttl))
	}
	if err := c.AuthConfig().Validate(); err != nil {
		var ce *auth.ConfigError
		if errors.As(err, &ce) {
			return c.fail(ce.Field, ce.Reason)
		}
		return c.fail("auth.enabled", err.Error())
	}
	return nil
}

// fail returns the Error of key with its origin.
func (c Config) fail(key, reason string) error {
	return &Error{Key: key, Source: c.origin[key], Reason: reason}
}

// checkAddr accepts host:port with a port from 0 to 65535 (host may be
// empty: every interface).
func checkAddr(addr string) error {
	if strings.TrimSpace(addr) == "" {
		return errors.New("is blank")
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. 127.0.0.1:8080 or :8080)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: the port must be a number from 0 to 65535", addr)
	}
	return nil
}

// keyValueDSN matches the start of a key=value connection string
// ("host=db dbname=aite").
var keyValueDSN = regexp.MustCompile(`^[a-z_]+=`)

// storeProblem says why a storage.store value is neither a PostgreSQL URL
// nor a SQLite file path ("" when it is one of them): a mistyped scheme or
// a key=value connection string would otherwise become a file name.
func storeProblem(store string) string {
	st := strings.TrimSpace(store)
	switch {
	case st == "" || IsPostgres(st):
		return ""
	case strings.Contains(st, "://"):
		return fmt.Sprintf("%q is not a PostgreSQL URL (postgres://… or postgresql://…) and not a SQLite file path", RedactURL(st))
	case keyValueDSN.MatchString(st):
		return "a key=value connection string is not accepted: give a PostgreSQL URL (postgres://user@host/db) or a SQLite file path"
	}
	return ""
}

// RedactURL hides the password of a URL-like value (url.URL.Redacted); a
// value that does not parse is not quoted at all, since its password could
// not be found.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
