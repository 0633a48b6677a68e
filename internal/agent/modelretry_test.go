package agent

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// The retry rule of § 6.3 (issue 14): one reconnect before the first event,
// a Retry-After honoured up to MaxRetryWait and named in run.error, a reset
// mid-stream retriable but never reconnected, and no internal address in
// the message a client sees. Both run kinds (the modes and the protocol
// runtime) go through streamModel (llm.Reconnect).
func TestModelRetryRule(t *testing.T) {
	rateLimited := func(after time.Duration) *llm.Error {
		return &llm.Error{Kind: llm.RateLimited, Status: 429, Message: "slow down", RetryAfter: after}
	}
	reset := &llm.Error{Kind: llm.Network, Message: "the stream broke off",
		Err: errors.New(`read tcp 10.20.30.40:51234->10.9.8.7:8000: read: connection reset by peer`)}
	refused := &llm.Error{Kind: llm.Network, Message: "connection failed",
		Err: fmt.Errorf(`Post "http://10.9.8.7:8000/v1/chat/completions": %w`, errors.New("dial tcp 10.9.8.7:8000: connection refused"))}
	// ok is the successful reply of the run kind.
	type replies func(ok llmtest.Reply) []llmtest.Reply
	cases := []struct {
		name      string
		replies   replies
		want      string
		requests  int
		sleeps    []time.Duration
		retriable bool
		message   []string // substrings of run.error's message
	}{
		{"retry-after within the cap is waited", func(ok llmtest.Reply) []llmtest.Reply {
			return []llmtest.Reply{llmtest.Fail(rateLimited(5 * time.Second)), ok}
		},
			"complete:stop", 2, []time.Duration{5 * time.Second}, false, nil},
		{"retry-after beyond the cap ends the call", func(ok llmtest.Reply) []llmtest.Reply {
			return []llmtest.Reply{llmtest.Fail(rateLimited(120 * time.Second)), ok}
		},
			"fail:model_error", 1, nil, true, []string{"HTTP 429", "retry after 120 s", "longer than the 30 s this server waits"}},
		{"a waited retry-after is named", func(llmtest.Reply) []llmtest.Reply {
			return []llmtest.Reply{llmtest.Fail(rateLimited(2 * time.Second)), llmtest.Fail(rateLimited(2 * time.Second))}
		},
			"fail:model_error", 2, []time.Duration{2 * time.Second}, true, []string{"retried once after the provider's Retry-After of 2 s"}},
		{"reset mid-stream", func(ok llmtest.Reply) []llmtest.Reply {
			return []llmtest.Reply{llmtest.Chunks("a", "b").FailAfter(2, reset), ok}
		},
			"fail:model_error", 1, nil, true, []string{"llm: network: the stream broke off"}},
		{"no address of the provider", func(llmtest.Reply) []llmtest.Reply {
			return []llmtest.Reply{llmtest.Fail(refused), llmtest.Fail(refused)}
		},
			"fail:model_error", 2, nil, true, []string{"llm: network: connection failed"}},
	}
	kinds := []struct {
		name  string
		files map[string]string
		ok    llmtest.Reply
	}{
		{"mode", map[string]string{"agents/a.json": oneshot(`"key": "a"`)}, llmtest.Text("ok")},
		{"protocol", protoFiles("", ""), solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"ok"}}`)},
	}
	for _, kind := range kinds {
		for _, c := range cases {
			t.Run(kind.name+"/"+c.name, func(t *testing.T) {
				e := newEnv(t, kind.files)
				var sleeps llmtest.Sleeps
				e.eng.Sleep = sleeps.Sleep
				p := scripted(c.replies(kind.ok)...)
				e.provide(p)
				rec, _ := e.run("a", "go")
				rec.requireTerminal(t, c.want)
				require.Len(t, p.Requests(), c.requests)
				require.Equal(t, c.sleeps, sleeps.Durations())
				if rec.info == nil {
					return
				}
				require.Equal(t, c.retriable, rec.info.Retriable)
				for _, m := range c.message {
					require.Contains(t, rec.info.Message, m)
				}
				require.NotContains(t, rec.info.Message, "10.9.8.7")
				require.NotContains(t, rec.info.Message, "10.20.30.40")
			})
		}
	}
}
