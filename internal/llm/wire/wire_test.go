package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMasking(t *testing.T) {
	for _, n := range []string{"Authorization", "x-api-key", "X-Auth-Token", "client_secret", "Cookie"} {
		require.True(t, IsSecretName(n), n)
	}
	require.False(t, IsSecretName("Content-Type"))
	h := http.Header{"Authorization": {"Bearer sk-123"}, "Accept": {"text/event-stream"}}
	require.Equal(t, []string{"Accept: text/event-stream", "Authorization: ***"}, MaskHeaders(h))
	u, _ := url.Parse("https://user:pw@h.example/v1?api_key=sk-1&x=2")
	got := MaskURL(u)
	require.NotContains(t, got, "sk-1")
	require.NotContains(t, got, "pw")
	require.Contains(t, got, "x=2")

	h = http.Header{"Authorization": {"Bearer sk-1"}, "Api-Key": {"k"}, "X-Trace": {"t"}}
	require.Equal(t, []string{"Api-Key: ***", "Authorization: ***", "X-Trace: t"}, MaskHeaders(h))
	u, _ = url.Parse("https://user:pw@host/v1/chat?api_key=s3cret&model=m&access_token=t0k")
	require.Equal(t, "https://%2A%2A%2A@host/v1/chat?access_token=%2A%2A%2A&api_key=%2A%2A%2A&model=m", MaskURL(u))
}

func TestLogExchangeNeverLogsTheKey(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	req, _ := http.NewRequest("POST", "https://h.example/v1/chat?token=sk-secret", nil)
	req.Header.Set("Authorization", "Bearer sk-secret")
	_, err := LogExchange(log, "llm/test: http", req, func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(""))}, nil
	})
	require.NoError(t, err)
	require.Contains(t, buf.String(), "status=200")
	require.NotContains(t, buf.String(), "sk-secret")
}

func TestRetryAfterAndBackoff(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.Equal(t, 7*time.Second, ParseRetryAfter(http.Header{"Retry-After": {"7"}}, now))
	require.Equal(t, 250*time.Millisecond, ParseRetryAfter(http.Header{"Retry-After-Ms": {"250"}}, now))
	require.Equal(t, 30*time.Second, ParseRetryAfter(http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, now))
	require.Equal(t, time.Hour, ParseRetryAfter(http.Header{"Retry-After": {"3600"}}, now), "as asked: callers decide")
	require.Equal(t, 24*time.Hour, ParseRetryAfter(http.Header{"Retry-After": {"9999999"}}, now))
	require.Equal(t, MaxRetryAfter, Backoff(time.Second, 0, time.Hour), "an adapter's own wait is capped")
	require.Zero(t, ParseRetryAfter(http.Header{"Retry-After": {"soon"}}, now))
	require.Equal(t, 5*time.Second, Backoff(time.Second, 3, 5*time.Second))
	for i := 0; i < 50; i++ {
		d := Backoff(100*time.Millisecond, 2, 0)
		require.GreaterOrEqual(t, d, 200*time.Millisecond)
		require.LessOrEqual(t, d, 400*time.Millisecond)
	}
	require.LessOrEqual(t, Backoff(time.Second, 40, 0), MaxRetryAfter)
}

func TestIsNetwork(t *testing.T) {
	require.True(t, IsNetwork(&url.Error{Op: "Post", URL: "x", Err: errors.New("refused")}))
	require.True(t, IsNetwork(io.ErrUnexpectedEOF))
	require.False(t, IsNetwork(errors.New("bad request")))
}

func TestCaptureStatusAndTruncate(t *testing.T) {
	ok := &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("fine"))}
	res, err := CaptureStatus(nil, func(*http.Request) (*http.Response, error) { return ok, nil })
	require.NoError(t, err)
	require.Same(t, ok, res)
	bad := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"3"}},
		Body: io.NopCloser(strings.NewReader(`{"error":"slow down"}`))}
	_, err = CaptureStatus(nil, func(*http.Request) (*http.Response, error) { return bad, nil })
	var se *StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 429, se.Status)
	require.Equal(t, "3", se.Header.Get("Retry-After"))
	require.Equal(t, `{"error":"slow down"}`, string(se.Body))
	require.Equal(t, "HTTP 429", se.Error())
	require.Equal(t, "abc", Truncate("abc", 5))
	require.Equal(t, "з…", Truncate("звезда", 3), "never inside a UTF-8 sequence")
}

func TestVersionedBase(t *testing.T) {
	for in, want := range map[string]string{
		"http://h":            "http://h/v1",
		"http://h/":           "http://h/v1",
		"http://h/v1":         "http://h/v1",
		"http://h/api/v1/":    "http://h/api/v1",
		"http://h/v1beta":     "http://h/v1beta/v1",
		"http://h/paas/v4":    "http://h/paas/v4",
		"http://h:11434/api":  "http://h:11434/api/v1",
		"https://h/openai/v1": "https://h/openai/v1",
	} {
		require.Equal(t, want, VersionedBase(in), in)
	}
}

func TestWithTimeout(t *testing.T) {
	ctx, cancel := WithTimeout(context.Background(), 0)
	_, has := ctx.Deadline()
	require.False(t, has, "no timeout")
	cancel()
	require.ErrorIs(t, ctx.Err(), context.Canceled)
	ctx, cancel = WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, has = ctx.Deadline()
	require.True(t, has)
}

// The adapters' client keeps enough idle connections per provider for a
// server streaming many runs at once (Go's default keeps 2), and bounds
// only the wait for response headers.
func TestNewHTTPClientKeepsConnections(t *testing.T) {
	c := NewHTTPClient()
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport %T, want *http.Transport", c.Transport)
	}
	if tr.MaxIdleConnsPerHost != MaxIdleConnsPerHost || tr.ResponseHeaderTimeout != ResponseHeaderTimeout || c.Timeout != 0 {
		t.Errorf("idle per host %d, header timeout %v, client timeout %v", tr.MaxIdleConnsPerHost, tr.ResponseHeaderTimeout, c.Timeout)
	}
	if tr.Proxy == nil {
		t.Error("the proxy from the environment is lost")
	}
}
