package llm_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
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

func TestSleep(t *testing.T) {
	require.NoError(t, llm.Sleep(context.Background(), 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, llm.Sleep(ctx, time.Hour), context.Canceled)
}
