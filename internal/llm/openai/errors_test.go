package openai_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

var okStream = llmtest.Response{Chunks: []string{llmtest.ContentChunk("ok"), llmtest.FinishChunk("stop")}}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestRetryBeforeFirstChunk(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name     string
		first    llmtest.Response
		wantWait func(t *testing.T, d time.Duration)
	}{
		{"429 with Retry-After seconds", llmtest.Response{Status: 429, Header: header("Retry-After", "2"),
			Body: `{"error":{"message":"slow down"}}`}, exactly(2 * time.Second)},
		{"429 with Retry-After date", llmtest.Response{Status: 429,
			Header: header("Retry-After", now.Add(5*time.Second).Format(http.TimeFormat))}, exactly(5 * time.Second)},
		{"429 with retry-after-ms", llmtest.Response{Status: 429, Header: header("Retry-After-Ms", "1500")},
			exactly(1500 * time.Millisecond)},
		{"Retry-After capped at 60s", llmtest.Response{Status: 429, Header: header("Retry-After", "3600")},
			exactly(time.Minute)},
		{"500 before output, jittered backoff", llmtest.Response{Status: 500, Body: "boom"}, between(250*time.Millisecond, 500*time.Millisecond)},
		{"503 with Retry-After", llmtest.Response{Status: 503, Header: header("Retry-After", "1")}, exactly(time.Second)},
		{"error event before the first chunk", llmtest.Response{Chunks: []string{llmtest.ErrorChunk(502, "bad gateway")}},
			between(250*time.Millisecond, 500*time.Millisecond)},
		{"connection cut before the first chunk", llmtest.Response{Abort: true}, between(250*time.Millisecond, 500*time.Millisecond)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.first, okStream)
			var sleeps llmtest.Sleeps
			p := srv.Provider(openai.Config{Sleep: sleeps.Sleep, Now: func() time.Time { return now }})
			got, err := drain(p.Stream(context.Background(), userRequest("hi")))
			require.NoError(t, err)
			require.Equal(t, []llm.Event{text("ok"), finish(llm.FinishStop)}, got)
			require.Len(t, srv.Requests(), 2)
			require.Len(t, sleeps.Durations(), 1)
			tc.wantWait(t, sleeps.Durations()[0])
		})
	}
}

func exactly(want time.Duration) func(*testing.T, time.Duration) {
	return func(t *testing.T, d time.Duration) { require.Equal(t, want, d) }
}

func between(lo, hi time.Duration) func(*testing.T, time.Duration) {
	return func(t *testing.T, d time.Duration) {
		require.True(t, d >= lo && d <= hi, "delay %v not in [%v,%v]", d, lo, hi)
	}
}

func TestRetriesExhausted(t *testing.T) {
	e500 := llmtest.Response{Status: 500, Body: `{"error":{"message":"overloaded"}}`}
	srv := llmtest.NewServer(t, e500, e500, e500, okStream)
	var sleeps llmtest.Sleeps
	p := srv.Provider(openai.Config{Sleep: sleeps.Sleep, RetryBaseDelay: 100 * time.Millisecond})
	_, err := drain(p.Stream(context.Background(), userRequest("hi")))
	var e *llm.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, llm.Server, e.Kind)
	require.Equal(t, 500, e.Status)
	require.Equal(t, "overloaded", e.Message)
	require.True(t, e.Retriable())
	require.Len(t, srv.Requests(), 3) // the first try and MaxRetries = 2 retries
	d := sleeps.Durations()
	require.Len(t, d, 2)
	between(50*time.Millisecond, 100*time.Millisecond)(t, d[0])
	between(100*time.Millisecond, 200*time.Millisecond)(t, d[1])
}

func TestNoRetryAfterOutput(t *testing.T) {
	cases := []struct {
		name string
		resp llmtest.Response
		kind llm.ErrorKind
	}{
		{"error event after partial output", llmtest.Response{Chunks: []string{llmtest.ContentChunk("par"),
			llmtest.ContentChunk("tial"), llmtest.ErrorChunk(500, "upstream died")}}, llm.Server},
		{"rate-limit event after partial output", llmtest.Response{Chunks: []string{llmtest.ContentChunk("par"),
			llmtest.ContentChunk("tial"), llmtest.ErrorChunk(429, "quota")}}, llm.RateLimited},
		{"connection cut after partial output", llmtest.Response{Chunks: []string{llmtest.ContentChunk("par"),
			llmtest.ContentChunk("tial")}, Abort: true}, llm.Network},
		{"malformed chunk after partial output", llmtest.Response{Chunks: []string{llmtest.ContentChunk("par"),
			llmtest.ContentChunk("tial"), `{"choices":[`}}, llm.Protocol},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.resp, okStream)
			var sleeps llmtest.Sleeps
			got, err := drain(srv.Provider(openai.Config{Sleep: sleeps.Sleep}).Stream(context.Background(), userRequest("hi")))
			require.True(t, llm.IsKind(err, tc.kind), "got %v", err)
			require.Equal(t, []llm.Event{text("par"), text("tial")}, got)
			require.Len(t, srv.Requests(), 1)
			require.Empty(t, sleeps.Durations())
		})
	}
}

func TestHTTPErrorMapping(t *testing.T) {
	cases := []struct {
		name    string
		resp    llmtest.Response
		kind    llm.ErrorKind
		message string
	}{
		{"401", llmtest.Response{Status: 401, Body: `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`},
			llm.Auth, "Incorrect API key provided"},
		{"403 plain text", llmtest.Response{Status: 403, Body: "forbidden\n"}, llm.Auth, "forbidden"},
		{"context_length_exceeded", llmtest.Response{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","code":"context_length_exceeded"}}`},
			llm.ContextTooLong, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."},
		{"too many tokens, string error", llmtest.Response{Status: 400, Body: `{"error":"too many tokens in prompt"}`},
			llm.ContextTooLong, "too many tokens in prompt"},
		{"400 other", llmtest.Response{Status: 400, Body: `{"message":"bad temperature"}`}, llm.BadRequest, "bad temperature"},
		{"404 model", llmtest.Response{Status: 404, Body: `{"error":{"message":"model 'x' not found"}}`},
			llm.BadRequest, "model 'x' not found"},
		{"422 detail", llmtest.Response{Status: 422, Body: `{"detail":"messages: field required"}`},
			llm.BadRequest, "messages: field required"},
		{"empty stream", llmtest.Response{}, llm.Protocol, "the stream ended without any chunk"},
		{"malformed first chunk", llmtest.Response{Chunks: []string{"not json"}}, llm.Protocol, "malformed chunk (not JSON)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.resp, okStream)
			var sleeps llmtest.Sleeps
			_, err := drain(srv.Provider(openai.Config{Sleep: sleeps.Sleep}).Stream(context.Background(), userRequest("hi")))
			var e *llm.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tc.kind, e.Kind, "%v", err)
			require.Equal(t, tc.message, e.Message)
			require.False(t, e.Retriable())
			require.Len(t, srv.Requests(), 1)
		})
	}
}

func TestNetworkError(t *testing.T) {
	srv := llmtest.NewServer(t)
	var sleeps llmtest.Sleeps
	p := srv.Provider(openai.Config{Sleep: sleeps.Sleep})
	srv.Close()
	_, err := drain(p.Stream(context.Background(), userRequest("hi")))
	require.True(t, llm.IsKind(err, llm.Network), "got %v", err)
	require.True(t, llm.IsRetriable(err))
	require.Len(t, sleeps.Durations(), 2)
}

func TestStreamOptionsRejected(t *testing.T) {
	reject := llmtest.Response{Status: 400, Body: `{"error":{"message":"Unrecognized request argument supplied: stream_options"}}`}
	srv := llmtest.NewServer(t, reject, okStream, okStream)
	var sleeps llmtest.Sleeps
	p := srv.Provider(openai.Config{Sleep: sleeps.Sleep})
	for range 2 {
		got, err := drain(p.Stream(context.Background(), userRequest("hi")))
		require.NoError(t, err)
		require.Equal(t, []llm.Event{text("ok"), finish(llm.FinishStop)}, got)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, map[string]any{"include_usage": true}, reqs[0].JSON["stream_options"])
	require.NotContains(t, reqs[1].JSON, "stream_options")
	require.NotContains(t, reqs[2].JSON, "stream_options") // remembered by the Provider
	require.Empty(t, sleeps.Durations())
}

func TestCancelMidStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Response{Chunks: []string{llmtest.ContentChunk("a")}, Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []llm.Event
	var err error
	for ev, e := range srv.Provider(openai.Config{}).Stream(ctx, userRequest("hi")) {
		if e != nil {
			err = e
			break
		}
		got = append(got, ev)
		cancel() // the server holds the stream open: only cancellation can end it
	}
	require.Equal(t, []llm.Event{text("a")}, got)
	require.True(t, llm.IsKind(err, llm.Canceled), "got %v", err)
	require.True(t, errors.Is(err, context.Canceled))
}

func TestTimeouts(t *testing.T) {
	hangEarly := llmtest.Response{Hang: true}
	hangLate := llmtest.Response{Chunks: []string{llmtest.ContentChunk("a")}, Hang: true}
	t.Run("per-call timeout before output", func(t *testing.T) {
		srv := llmtest.NewServer(t, hangEarly)
		_, err := drain(srv.Provider(openai.Config{RequestTimeout: 50 * time.Millisecond}).Stream(context.Background(), userRequest("hi")))
		require.True(t, llm.IsKind(err, llm.Timeout), "got %v", err)
		require.Len(t, srv.Requests(), 1) // the deadline covers the whole call: no retry
	})
	t.Run("per-call timeout mid-stream", func(t *testing.T) {
		srv := llmtest.NewServer(t, hangLate)
		got, err := drain(srv.Provider(openai.Config{RequestTimeout: 50 * time.Millisecond}).Stream(context.Background(), userRequest("hi")))
		require.Equal(t, []llm.Event{text("a")}, got)
		require.True(t, llm.IsKind(err, llm.Timeout), "got %v", err)
	})
	t.Run("caller deadline", func(t *testing.T) {
		srv := llmtest.NewServer(t, hangLate)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := drain(srv.Provider(openai.Config{}).Stream(ctx, userRequest("hi")))
		require.True(t, llm.IsKind(err, llm.Timeout), "got %v", err)
	})
	t.Run("canceled during the retry wait", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Response{Status: 500}, okStream)
		ctx, cancel := context.WithCancel(context.Background())
		sleep := func(ctx context.Context, _ time.Duration) error { cancel(); <-ctx.Done(); return ctx.Err() }
		_, err := drain(srv.Provider(openai.Config{Sleep: sleep}).Stream(ctx, userRequest("hi")))
		require.True(t, llm.IsKind(err, llm.Canceled), "got %v", err)
		require.Len(t, srv.Requests(), 1)
	})
}

func TestLogsMaskSecrets(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := llmtest.NewServer(t, llmtest.Response{Status: 500}, okStream)
	p := srv.Provider(openai.Config{APIKey: "sk-very-secret", Logger: log,
		Headers: map[string]string{"X-Api-Key": "hdr-secret", "X-Session-Token": "tok-secret", "X-Trace": "visible"}})
	_, err := drain(p.Stream(context.Background(), userRequest("hi")))
	require.NoError(t, err)
	out := buf.String()
	for _, secret := range []string{"sk-very-secret", "hdr-secret", "tok-secret"} {
		require.NotContains(t, out, secret)
	}
	require.Contains(t, out, "Authorization: ***")
	require.Contains(t, out, "X-Trace: visible")
	require.Contains(t, out, "retrying")
	r := srv.Requests()[1]
	require.Equal(t, "Bearer sk-very-secret", r.Header.Get("Authorization"))
	require.Equal(t, "hdr-secret", r.Header.Get("X-Api-Key"))
}
