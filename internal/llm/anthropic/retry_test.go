package anthropic

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestRateLimitRetryAfterThenSuccess(t *testing.T) {
	srv := newServer(t,
		reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "7"},
			body: errorBodyJSON("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")},
		textReply("ok"))
	sl := &llmtest.Sleeps{}
	evs, err := collect(context.Background(), newTestProvider(srv, sl), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, []time.Duration{7 * time.Second}, sl.Durations()) // the recorder slept, not the clock
	require.Len(t, srv.requests(), 2)
	require.Equal(t, llm.Event{Kind: llm.EventTextDelta, Text: "ok"}, evs[0])
}

func TestRetryAfterIsCapped(t *testing.T) {
	srv := newServer(t,
		reply{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "3600"}, body: "{}"},
		textReply("ok"))
	sl := &llmtest.Sleeps{}
	_, err := collect(context.Background(), newTestProvider(srv, sl), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, []time.Duration{time.Minute}, sl.Durations())
}

func TestServerErrorBeforeOutputIsRetriedWithBackoff(t *testing.T) {
	srv := newServer(t,
		reply{status: http.StatusInternalServerError, body: errorBodyJSON("api_error", "Internal server error")},
		reply{status: 529, body: errorBodyJSON("overloaded_error", "Overloaded")},
		textReply("fine"))
	sl := &llmtest.Sleeps{}
	evs, err := collect(context.Background(), newTestProvider(srv, sl), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, "fine", evs[0].Text)
	d := sl.Durations()
	require.Len(t, d, 2)
	require.True(t, d[0] >= 50*time.Millisecond && d[0] <= 100*time.Millisecond, "first step in [base/2, base]: %v", d[0])
	require.True(t, d[1] >= 100*time.Millisecond && d[1] <= 200*time.Millisecond, "second step doubled: %v", d[1])
}

func TestRetriesExhausted(t *testing.T) {
	srv := newServer(t, reply{status: http.StatusServiceUnavailable, body: errorBodyJSON("api_error", "down")})
	sl := &llmtest.Sleeps{}
	_, err := collect(context.Background(), newTestProvider(srv, sl, func(c *Config) { c.MaxRetries = 3 }), simpleRequest())
	var e *llm.Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, llm.Server, e.Kind)
	require.Equal(t, http.StatusServiceUnavailable, e.Status)
	require.Equal(t, "api_error: down", e.Message)
	require.Len(t, srv.requests(), 4)
	require.Len(t, sl.Durations(), 3)
}

func TestErrorAfterPartialOutputIsNotRetried(t *testing.T) {
	srv := newServer(t,
		reply{frames: []string{msgStart(1, 0, 0), textStart(0), textDelta(0, "Hal"), errorEvent("overloaded_error", "Overloaded")}},
		textReply("never"))
	evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.Equal(t, []llm.Event{{Kind: llm.EventTextDelta, Text: "Hal"}}, evs)
	var e *llm.Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, llm.Server, e.Kind)
	require.True(t, e.Retriable())
	require.Equal(t, "overloaded_error: Overloaded", e.Message)
	require.Len(t, srv.requests(), 1)
}

// A reset after output is a network failure (retriable for the caller) that
// the adapter itself never retries.
func TestBrokenConnectionAfterOutputIsNetworkNotRetried(t *testing.T) {
	srv := newServer(t, reply{frames: []string{msgStart(1, 0, 0), textStart(0), textDelta(0, "Hal")}, abort: true})
	evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.Len(t, evs, 1)
	require.Equal(t, llm.Network, llm.KindOf(err))
	require.True(t, llm.IsRetriable(err))
	require.Len(t, srv.requests(), 1)
}

func TestBrokenConnectionBeforeOutputIsRetried(t *testing.T) {
	srv := newServer(t, reply{frames: []string{msgStart(1, 0, 0)}, abort: true}, textReply("ok"))
	evs, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, "ok", evs[0].Text)
	require.Len(t, srv.requests(), 2)
}

func TestOverloadedErrorEventBeforeOutputIsRetried(t *testing.T) {
	overloaded := reply{frames: []string{msgStart(1, 0, 0), ping(), errorEvent("overloaded_error", "Overloaded")}}
	srv := newServer(t, overloaded, textReply("ok"))
	sl := &llmtest.Sleeps{}
	evs, err := collect(context.Background(), newTestProvider(srv, sl), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, "ok", evs[0].Text)
	require.Len(t, sl.Durations(), 1)

	srv = newServer(t, overloaded)
	_, err = collect(context.Background(), newTestProvider(srv, sl, func(c *Config) { c.MaxRetries = -1 }), simpleRequest())
	var e *llm.Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, llm.Server, e.Kind)
	require.Equal(t, 0, e.Status)
	require.Len(t, srv.requests(), 1)
}

func TestErrorEventKinds(t *testing.T) {
	cases := map[string]llm.ErrorKind{
		"overloaded_error":      llm.Server,
		"api_error":             llm.Server,
		"rate_limit_error":      llm.RateLimited,
		"invalid_request_error": llm.BadRequest,
	}
	for typ, want := range cases {
		srv := newServer(t, reply{frames: []string{msgStart(1, 0, 0), errorEvent(typ, "boom")}})
		_, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}, func(c *Config) { c.MaxRetries = -1 }), simpleRequest())
		require.Equal(t, want, llm.KindOf(err), typ)
	}
}

func TestHTTPErrorMapping(t *testing.T) {
	cases := []struct {
		status int
		body   string
		want   llm.ErrorKind
	}{
		{401, errorBodyJSON("authentication_error", "invalid x-api-key"), llm.Auth},
		{403, errorBodyJSON("permission_error", "no access"), llm.Auth},
		{400, errorBodyJSON("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"), llm.ContextTooLong},
		{400, errorBodyJSON("invalid_request_error", "max_tokens: Field required"), llm.BadRequest},
		{404, errorBodyJSON("not_found_error", "model: claude-nope"), llm.BadRequest},
		{413, errorBodyJSON("request_too_large", "Request exceeds the maximum allowed number of bytes."), llm.BadRequest},
		{429, errorBodyJSON("rate_limit_error", "slow down"), llm.RateLimited},
		{500, "<html>bad gateway</html>", llm.Server},
		{529, errorBodyJSON("overloaded_error", "Overloaded"), llm.Server},
	}
	for _, c := range cases {
		srv := newServer(t, reply{status: c.status, body: c.body})
		sl := &llmtest.Sleeps{}
		_, err := collect(context.Background(), newTestProvider(srv, sl, func(c *Config) { c.MaxRetries = -1 }), simpleRequest())
		var e *llm.Error
		require.True(t, errors.As(err, &e), "status %d", c.status)
		require.Equal(t, c.want, e.Kind, "status %d: %v", c.status, err)
		require.Equal(t, c.status, e.Status)
		require.Len(t, srv.requests(), 1)
		require.Empty(t, sl.Durations())
	}
}

func TestCancellationMidStream(t *testing.T) {
	srv := newServer(t, reply{frames: []string{msgStart(1, 0, 0), textStart(0), textDelta(0, "a")}, hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []llm.Event
	var final error
	for ev, err := range newTestProvider(srv, &llmtest.Sleeps{}).Stream(ctx, simpleRequest()) {
		if err != nil {
			final = err
			break
		}
		evs = append(evs, ev)
		cancel()
	}
	require.Len(t, evs, 1)
	require.Equal(t, llm.Canceled, llm.KindOf(final))
	require.Len(t, srv.requests(), 1)
}

func TestRequestTimeout(t *testing.T) {
	srv := newServer(t, reply{frames: []string{msgStart(1, 0, 0), textStart(0), textDelta(0, "a")}, hang: true})
	p := newTestProvider(srv, &llmtest.Sleeps{}, func(c *Config) { c.RequestTimeout = 200 * time.Millisecond })
	evs, err := collect(context.Background(), p, simpleRequest())
	require.Len(t, evs, 1)
	require.Equal(t, llm.Timeout, llm.KindOf(err))
}

func TestCanceledDuringRetryWait(t *testing.T) {
	srv := newServer(t, reply{status: 500, body: "{}"})
	ctx, cancel := context.WithCancel(context.Background())
	p := newTestProvider(srv, &llmtest.Sleeps{}, func(c *Config) {
		c.Sleep = func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }
	})
	_, err := collect(ctx, p, simpleRequest())
	require.Equal(t, llm.Canceled, llm.KindOf(err))
	require.Len(t, srv.requests(), 1)
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	h := func(k, v string) http.Header { return http.Header{k: []string{v}} }
	require.Equal(t, 2*time.Second, parseRetryAfter(h("Retry-After", "2"), now))
	require.Equal(t, 1500*time.Millisecond, parseRetryAfter(h("Retry-After-Ms", "1500"), now))
	require.Equal(t, 30*time.Second, parseRetryAfter(h("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat)), now))
	require.Equal(t, 999*time.Second, parseRetryAfter(h("Retry-After", "999"), now))
	require.Zero(t, parseRetryAfter(h("Retry-After", "soon"), now))
	require.Zero(t, parseRetryAfter(http.Header{}, now))
}
