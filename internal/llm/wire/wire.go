// Package wire is the HTTP plumbing the model adapters share: masking
// credentials in debug logs, Retry-After parsing, jittered backoff, retry
// sleeps and per-call timeouts, versioned base URLs, and telling network
// failures apart. It knows no provider.
package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Masked replaces every secret value in logs.
const Masked = "***"

// MaxRetryAfter caps the wait of an adapter's own retry (Backoff), whatever
// the server's Retry-After asks for.
const MaxRetryAfter = 60 * time.Second

// maxParsedRetryAfter bounds a parsed Retry-After (a sanity bound: callers
// see how long the server asked for, so they can refuse to wait that long).
const maxParsedRetryAfter = 24 * time.Hour

// secretMarkers are the (lower-case) name fragments whose values are masked.
var secretMarkers = []string{"authorization", "apikey", "api-key", "api_key", "token", "secret", "password", "cookie"}

// IsSecretName reports whether a header, query parameter or field named
// name carries a credential (authorization, api key, token, secret,
// password, cookie) whose value logs must mask.
func IsSecretName(name string) bool {
	n := strings.ToLower(name)
	for _, m := range secretMarkers {
		if strings.Contains(n, m) {
			return true
		}
	}
	return false
}

// MaskHeaders returns the headers as "Name: value" lines sorted by name,
// with the values of secret headers masked.
func MaskHeaders(h http.Header) []string {
	out := make([]string, 0, len(h))
	for k, vs := range h {
		v := strings.Join(vs, ", ")
		if IsSecretName(k) {
			v = Masked
		}
		out = append(out, k+": "+v)
	}
	sort.Strings(out)
	return out
}

// MaskURL returns u as text with the values of secret query parameters and
// any user info masked.
func MaskURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(Masked)
	}
	q := c.Query()
	changed := false
	for k := range q {
		if IsSecretName(k) {
			q.Set(k, Masked)
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// LogExchange runs one HTTP exchange through next and logs it at debug
// level (method, masked URL and headers, body size, time, status or error)
// under msg. Nothing is logged when debug is off.
func LogExchange(log *slog.Logger, msg string, req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if log == nil || !log.Enabled(req.Context(), slog.LevelDebug) {
		return next(req)
	}
	start := time.Now()
	res, err := next(req)
	attrs := []any{"method", req.Method, "url", MaskURL(req.URL), "headers", MaskHeaders(req.Header),
		"bodyBytes", req.ContentLength, "elapsed", time.Since(start)}
	if res != nil {
		attrs = append(attrs, "status", res.StatusCode)
	}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	log.Log(context.WithoutCancel(req.Context()), slog.LevelDebug, msg, attrs...)
	return res, err
}

// Backoff is the server's Retry-After when given, else a jittered
// exponential backoff: a random duration in [step/2, step] with
// step = base·2^retries; either is capped at MaxRetryAfter.
func Backoff(base time.Duration, retries int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, MaxRetryAfter)
	}
	step := min(base<<min(retries, 16), MaxRetryAfter)
	half := step / 2
	return half + rand.N(step-half+1)
}

// WithTimeout bounds ctx by d (an adapter's per-call RequestTimeout) when d
// is positive; either way the caller must call the returned cancel.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// ParseRetryAfter reads retry-after-ms or Retry-After (seconds or an HTTP
// date) as the server sent it (bounded at 24 h); 0 when absent or
// unparsable. Backoff caps the wait.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 {
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); d == 0 && v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			d = time.Duration(secs * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	return min(max(d, 0), maxParsedRetryAfter)
}

// versionSuffix matches a base URL that already names an API version.
var versionSuffix = regexp.MustCompile(`/v[0-9]+$`)

// VersionedBase returns an OpenAI-compatible base URL without trailing
// slashes, with "/v1" appended unless its path already ends in a version
// segment (/v<digits>): the prefix of chat/completions, models, ….
func VersionedBase(base string) string {
	base = strings.TrimRight(base, "/")
	if versionSuffix.MatchString(base) {
		return base
	}
	return base + "/v1"
}

// IsNetwork reports transport-level failures.
func IsNetwork(err error) bool {
	var ue *url.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &oe) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// StatusError is an HTTP response with status >= 400, captured before an
// SDK parses it, with its headers and (up to 64 KiB of) body.
type StatusError struct {
	Status int
	Header http.Header
	Body   []byte
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d", e.Status) }

// CaptureStatus is SDK middleware that turns an HTTP error response into a
// *StatusError, so that error mapping does not depend on how the SDK parses
// error bodies (some lose the status, some print nothing but it).
func CaptureStatus(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode < http.StatusBadRequest {
		return res, err
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	_ = res.Body.Close()
	return nil, &StatusError{Status: res.StatusCode, Header: res.Header, Body: body}
}

// Truncate shortens an error message to at most n bytes, never inside a
// UTF-8 sequence, marking the cut with "…".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
