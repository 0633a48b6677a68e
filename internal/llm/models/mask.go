package models

import (
	"log/slog"
	"strings"

	"github.com/aitexteditor/aite/internal/llm/wire"
)

// masked replaces a secret that is too short to show any of.
const masked = "***"

// maskMinLen is the shortest secret of which Mask shows the ends.
const maskMinLen = 16

// Mask hides a secret for logs: "" stays "", a value of at least 16
// characters keeps its first 3 and last 2 ("sk-***yz"), anything shorter
// becomes "***".
func Mask(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) < maskMinLen:
		return masked
	}
	return s[:3] + masked + s[len(s)-2:]
}

// IsSecretName reports whether a header, field or attribute named name
// carries a credential: its name contains authorization, apikey, api-key,
// api_key, token, secret, password or cookie (any case).
func IsSecretName(name string) bool { return wire.IsSecretName(name) }

// RedactHeaders returns a copy of h with the values of secret headers
// masked.
func RedactHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		if IsSecretName(k) {
			v = Mask(v)
		}
		out[k] = v
	}
	return out
}

// ReplaceAttr is a slog.HandlerOptions.ReplaceAttr that masks the values of
// secret-named attributes (authorization, apiKey, token, secret, password,
// …) and of secret keys inside map[string]string values (headers).
func ReplaceAttr(_ []string, a slog.Attr) slog.Attr {
	if IsSecretName(a.Key) {
		switch v := a.Value.Resolve(); v.Kind() {
		case slog.KindString:
			return slog.String(a.Key, Mask(v.String()))
		case slog.KindGroup:
			return a // its members are replaced one by one
		default:
			return slog.String(a.Key, masked)
		}
	}
	if a.Value.Kind() == slog.KindAny {
		if h, ok := a.Value.Any().(map[string]string); ok {
			return slog.Any(a.Key, RedactHeaders(h))
		}
	}
	return a
}

// redactText replaces every occurrence of secret in s by its mask.
func redactText(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, Mask(secret))
}
