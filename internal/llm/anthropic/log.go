package anthropic

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/option"
)

// masked replaces every secret value in logs.
const masked = "***"

// secretMarkers are the (lower-case) name fragments whose values are masked.
var secretMarkers = []string{"authorization", "apikey", "api-key", "api_key", "token", "secret", "password", "cookie"}

// isSecretName reports whether a header or query parameter named name
// carries a credential and must be masked in logs.
func isSecretName(name string) bool {
	n := strings.ToLower(name)
	for _, m := range secretMarkers {
		if strings.Contains(n, m) {
			return true
		}
	}
	return false
}

// maskHeaders returns the headers as "Name: value" lines sorted by name, with
// the values of secret headers (x-api-key, authorization, …) masked.
func maskHeaders(h http.Header) []string {
	out := make([]string, 0, len(h))
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		if isSecretName(k) {
			v = masked
		}
		out = append(out, k+": "+v)
	}
	sort.Strings(out)
	return out
}

// maskURL returns u as text with the values of secret query parameters and
// any user info masked.
func maskURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(masked)
	}
	q := c.Query()
	changed := false
	for k := range q {
		if isSecretName(k) {
			q.Set(k, masked)
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// logExchange logs each HTTP exchange at debug level with credentials masked.
func (p *Provider) logExchange(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	log := p.cfg.Logger
	if !log.Enabled(req.Context(), slog.LevelDebug) {
		return next(req)
	}
	start := time.Now()
	res, err := next(req)
	attrs := []any{"method", req.Method, "url", maskURL(req.URL), "headers", maskHeaders(req.Header),
		"bodyBytes", req.ContentLength, "elapsed", time.Since(start)}
	if res != nil {
		attrs = append(attrs, "status", res.StatusCode)
	}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	log.Log(context.WithoutCancel(req.Context()), slog.LevelDebug, "llm/anthropic: http", attrs...)
	return res, err
}
