package llm_test

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

// The one retry rule of a model call: one reconnect, only before the first
// event, only for a retriable error, into a Retry-After no longer than
// MaxWait.
func TestReconnect(t *testing.T) {
	server := &llm.Error{Kind: llm.Server, Status: 500, Message: "boom"}
	slow := &llm.Error{Kind: llm.RateLimited, Status: 429, Message: "slow down", RetryAfter: 2 * time.Second}
	quota := &llm.Error{Kind: llm.RateLimited, Status: 429, Message: "quota", RetryAfter: 2 * time.Minute}
	bad := &llm.Error{Kind: llm.BadRequest, Status: 400, Message: "bad"}
	for _, tc := range []struct {
		name     string
		replies  []llmtest.Reply
		requests int
		text     string
		err      error
		waited   []time.Duration
	}{
		{"ok", []llmtest.Reply{llmtest.Text("a")}, 1, "a", nil, nil},
		{"one failure", []llmtest.Reply{llmtest.Fail(server), llmtest.Text("a")}, 2, "a", nil, nil},
		{"down", []llmtest.Reply{llmtest.Fail(server), llmtest.Fail(server), llmtest.Text("a")}, 2, "", server, nil},
		{"not retriable", []llmtest.Reply{llmtest.Fail(bad), llmtest.Text("a")}, 1, "", bad, nil},
		{"after output", []llmtest.Reply{{Events: llmtest.Text("par").Events[:1], Err: server}, llmtest.Text("a")}, 1, "par", server, nil},
		{"retry-after waited", []llmtest.Reply{llmtest.Fail(slow), llmtest.Text("a")}, 2, "a", nil, []time.Duration{2 * time.Second}},
		{"retry-after too long", []llmtest.Reply{llmtest.Fail(quota), llmtest.Text("a")}, 1, "", quota, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := llmtest.NewScripted(tc.replies...)
			var waited []time.Duration
			r := llm.Reconnect{MaxWait: 30 * time.Second, Sleep: func(_ context.Context, d time.Duration) error {
				waited = append(waited, d)
				return nil
			}}
			resp, err := llm.Collect(r.Stream(context.Background(), p, &llm.Request{}))
			require.Len(t, p.Requests(), tc.requests)
			require.Equal(t, tc.text, resp.Message.Content)
			require.Equal(t, tc.waited, waited)
			if tc.err == nil {
				require.NoError(t, err)
				return
			}
			require.True(t, errors.Is(err, tc.err), "%v", err)
		})
	}
}

// An attempt that runs out of the per-call Timeout is not reconnected: the
// call fails with a *TimeoutError, and only the reconnect is logged, not
// a timeout or a call its caller ended.
func TestReconnectTimeout(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	p := llmtest.NewScripted(llmtest.Timeout(), llmtest.Text("never"))
	r := llm.Reconnect{Timeout: 20 * time.Millisecond, Log: log}
	_, err := llm.Collect(r.Stream(context.Background(), p, &llm.Request{}))
	var te *llm.TimeoutError
	require.ErrorAs(t, err, &te)
	require.Equal(t, 20*time.Millisecond, te.Timeout)
	require.True(t, llm.IsKind(err, llm.Timeout), "%v", err)
	require.Len(t, p.Requests(), 1)
	require.Empty(t, logged.String())

	ctx, cancel := context.WithCancel(context.Background())
	p = llmtest.NewScripted(llmtest.Fail(&llm.Error{Kind: llm.Network, Message: "reset"}), llmtest.Timeout())
	r.Timeout = time.Hour
	_, err = llm.Collect(r.Stream(ctx, cancelOnCall{Scripted: p, n: 2, cancel: cancel}, &llm.Request{}))
	require.True(t, llm.IsKind(err, llm.Canceled), "%v", err)
	require.False(t, errors.As(err, &te))
	require.Contains(t, logged.String(), "reconnecting")
	require.NotContains(t, logged.String(), "WARN")
}

// A call its caller ends during the reconnect fails with the context's
// error, not as a retry that failed after a Retry-After.
func TestReconnectCanceledAfterAWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	slow := &llm.Error{Kind: llm.RateLimited, Status: 429, Message: "slow down", RetryAfter: 2 * time.Second}
	p := llmtest.NewScripted(llmtest.Fail(slow), llmtest.Timeout())
	r := llm.Reconnect{Timeout: time.Hour, Sleep: func(context.Context, time.Duration) error { return nil }}
	_, err := llm.Collect(r.Stream(ctx, cancelOnCall{Scripted: p, n: 2, cancel: cancel}, &llm.Request{}))
	require.True(t, llm.IsKind(err, llm.Canceled), "%v", err)
	var re *llm.RetryError
	require.False(t, errors.As(err, &re), "%v", err)
	require.Len(t, p.Requests(), 2)
}

// cancelOnCall is a provider whose caller's context is canceled as its
// call number n starts.
type cancelOnCall struct {
	*llmtest.Scripted
	n      int
	cancel context.CancelFunc
}

func (c cancelOnCall) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	if len(c.Requests())+1 == c.n {
		c.cancel()
	}
	return c.Scripted.Stream(ctx, req)
}

// Reconnecting applies the rule with its defaults and keeps the provider's
// abilities.
func TestReconnecting(t *testing.T) {
	p := llmtest.NewScripted(llmtest.Fail(&llm.Error{Kind: llm.Network, Message: "reset"}), llmtest.Text("a"))
	resp, err := llm.Collect(llm.Reconnecting(p).Stream(context.Background(), &llm.Request{}))
	require.NoError(t, err)
	require.Equal(t, "a", resp.Message.Content)
	require.Len(t, p.Requests(), 2)
	require.False(t, llm.SupportsJSONSchema(llm.Reconnecting(p), "m"))
}

// A caller outside the agent runtime whose provider answers 429 with a
// Retry-After longer than the rule waits gets the provider's error saying
// so, not retried; one whose reconnect after a Retry-After failed too is
// told it was waited. Against the fake OpenAI-compatible server, with the
// adapter's own retries off as the model registry builds it.
func TestReconnectingSaysWhyNotRetried(t *testing.T) {
	limited := func(wait string) llmtest.Response {
		return llmtest.Response{Status: 429, Header: http.Header{"Retry-After": {wait}},
			Body: `{"error":{"message":"rate limit reached"}}`}
	}
	for _, tc := range []struct {
		name     string
		replies  []llmtest.Response
		requests int
		says     string
		waited   []time.Duration
	}{
		{"refused", []llmtest.Response{limited("45")}, 1,
			"(the provider asked to wait 45 s, more than the 30 s the client waits, so it was not retried)", nil},
		{"waited", []llmtest.Response{limited("2"), limited("2")}, 2,
			"(retried once after the provider's Retry-After of 2 s)", []time.Duration{2 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.replies...)
			p := srv.Provider(openai.Config{MaxRetries: -1})
			var waited []time.Duration
			r := llm.Reconnect{Sleep: func(_ context.Context, d time.Duration) error {
				waited = append(waited, d)
				return nil
			}}
			_, err := llm.Collect(r.Stream(context.Background(), p, &llm.Request{Model: "m"}))
			require.Error(t, err)
			require.Len(t, srv.Requests(), tc.requests)
			require.Equal(t, tc.waited, waited)
			require.True(t, strings.HasSuffix(err.Error(), tc.says), err.Error())
			require.Contains(t, err.Error(), "rate limit reached")
			require.True(t, llm.IsKind(err, llm.RateLimited), "%v", err)
			var re *llm.RetryError
			require.ErrorAs(t, err, &re)
		})
	}
	// The same through Reconnecting, with its real defaults: no wait at all.
	srv := llmtest.NewServer(t, limited("120"))
	_, err := llm.Collect(llm.Reconnecting(srv.Provider(openai.Config{MaxRetries: -1})).Stream(context.Background(), &llm.Request{Model: "m"}))
	require.ErrorContains(t, err, "the provider asked to wait 120 s, more than the 30 s the client waits, so it was not retried")
	require.Len(t, srv.Requests(), 1)
}

func TestSleep(t *testing.T) {
	require.NoError(t, llm.Sleep(context.Background(), 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, llm.Sleep(ctx, time.Hour), context.Canceled)
}
