package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestCollect(t *testing.T) {
	u := llm.Usage{InputTokens: 10, OutputTokens: 3}
	seq := llmtest.NewScripted(llmtest.Join(
		llmtest.Reasoning("th"), llmtest.Reasoning("ink"), llmtest.Chunks("a", "b"),
		llmtest.Calls(llmtest.Call("f", `{"x":1}`), llm.ToolCall{ID: "given", Name: "g"}),
	).WithUsage(u)).Stream(context.Background(), &llm.Request{})
	resp, err := llm.Collect(seq)
	require.NoError(t, err)
	require.Equal(t, llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: "ab", Reasoning: "think", ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "f", Arguments: `{"x":1}`}, {ID: "given", Name: "g"}}},
		Usage:  u,
		Finish: llm.FinishToolCalls,
	}, resp)
}

func TestCollectPartialOnError(t *testing.T) {
	boom := &llm.Error{Kind: llm.Server, Message: "boom"}
	events := []llm.Event{
		{Kind: llm.EventTextDelta, Text: "par"},
		{Kind: llm.EventToolCallStart, Index: 0, Call: &llm.ToolCall{ID: "a", Name: "f"}},
		{Kind: llm.EventToolCallDelta, Index: 0, Text: `{"q":`},
	}
	resp, err := llm.Collect(llmtest.NewScripted(llmtest.Reply{Events: events, Err: boom}).Stream(context.Background(), &llm.Request{}))
	require.ErrorIs(t, err, boom)
	require.Equal(t, "par", resp.Message.Content)
	require.Equal(t, []llm.ToolCall{{ID: "a", Name: "f", Arguments: `{"q":`}}, resp.Message.ToolCalls)
	require.Equal(t, llm.FinishReason(""), resp.Finish)
}

func TestErrors(t *testing.T) {
	cases := []struct {
		kind      llm.ErrorKind
		retriable bool
	}{
		{llm.RateLimited, true}, {llm.Server, true}, {llm.Network, true}, {llm.Timeout, true},
		{llm.BadRequest, false}, {llm.Auth, false}, {llm.ContextTooLong, false}, {llm.Canceled, false}, {llm.Protocol, false},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind), func(t *testing.T) {
			cause := errors.New("cause")
			err := fmt.Errorf("turn 3: %w", &llm.Error{Kind: tc.kind, Status: 418, Message: "msg", Err: cause})
			require.Equal(t, tc.retriable, llm.IsRetriable(err))
			require.True(t, llm.IsKind(err, tc.kind))
			require.Equal(t, tc.kind, llm.KindOf(err))
			require.ErrorIs(t, err, cause)
			require.Equal(t, "turn 3: llm: "+string(tc.kind)+" (HTTP 418): msg: cause", err.Error())
		})
	}
	require.Equal(t, llm.ErrorKind(""), llm.KindOf(errors.New("plain")))
	require.False(t, llm.IsRetriable(errors.New("plain")))
}

func TestStatusKind(t *testing.T) {
	for status, want := range map[int]llm.ErrorKind{
		400: llm.BadRequest, 401: llm.Auth, 403: llm.Auth, 404: llm.BadRequest, 408: llm.Timeout,
		413: llm.BadRequest, 422: llm.BadRequest, 429: llm.RateLimited, 500: llm.Server, 503: llm.Server, 529: llm.Server,
	} {
		require.Equal(t, want, llm.StatusKind(status), "HTTP %d", status)
	}
}

func TestContextError(t *testing.T) {
	require.Nil(t, llm.ContextError(context.Background()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.Equal(t, llm.Canceled, llm.ContextError(ctx).Kind)
	ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	e := llm.ContextError(ctx)
	require.Equal(t, llm.Timeout, e.Kind)
	require.ErrorIs(t, e, context.DeadlineExceeded)
}

func TestUsageAndPricing(t *testing.T) {
	u := llm.Usage{InputTokens: 1000, CachedInputTokens: 400, OutputTokens: 500, Cost: 1}
	require.Equal(t, llm.Usage{InputTokens: 2000, CachedInputTokens: 800, OutputTokens: 1000, Cost: 2}, u.Add(u))
	p := llm.Pricing{InputPer1K: 2, CachedInputPer1K: 1, OutputPer1K: 8}
	require.InDelta(t, 600*2/1000.0+400*1/1000.0+500*8/1000.0, p.Cost(u), 1e-12)
	noCacheRate := llm.Pricing{InputPer1K: 2, OutputPer1K: 8}
	require.InDelta(t, 1000*2/1000.0+500*8/1000.0, noCacheRate.Cost(u), 1e-12)
	require.Zero(t, llm.Pricing{}.Cost(u))
}

func TestEstimateTokens(t *testing.T) {
	cases := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"a", 1},          // ceil(1/4)
		{"abcd", 1},       // 4 Latin runes
		{"abcde", 2},      // ceil(5/4)
		{"привет", 3},     // ceil(6/2.5) = ceil(2.4)
		{"приве", 2},      // 5 Cyrillic runes = 2 tokens exactly
		{"мир, world", 3}, // ceil(3/2.5 + 7/4) = ceil(1.2+1.75)
		{"日本語", 3},        // one per CJK rune
		{"ёЁ", 1},         // ceil(0.8)
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, llm.EstimateTokens(tc.s), tc.s)
	}
}

func TestRequestClone(t *testing.T) {
	orig := &llm.Request{
		Model:             "m",
		Messages:          []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a"}}}},
		Tools:             []llm.Tool{{Name: "f", Parameters: []byte(`{}`)}},
		ResponseFormat:    &llm.ResponseFormat{Type: llm.FormatJSONSchema, Schema: []byte(`{}`)},
		Temperature:       new(0.5),
		TopP:              new(0.9),
		Reasoning:         &llm.ReasoningConfig{Effort: "low"},
		ParallelToolCalls: new(true),
	}
	c := orig.Clone()
	require.Equal(t, orig, c)
	c.Messages[0].ToolCalls[0].ID = "changed"
	c.Tools[0].Parameters[0] = '['
	c.ResponseFormat.Schema[0] = '['
	*c.Temperature, *c.TopP, c.Reasoning.Effort, *c.ParallelToolCalls = 1, 1, "high", false
	require.Equal(t, "a", orig.Messages[0].ToolCalls[0].ID)
	require.Equal(t, "{}", string(orig.Tools[0].Parameters))
	require.Equal(t, "{}", string(orig.ResponseFormat.Schema))
	require.Equal(t, 0.5, *orig.Temperature)
	require.Equal(t, "low", orig.Reasoning.Effort)
	require.True(t, *orig.ParallelToolCalls)
	require.Nil(t, (*llm.Request)(nil).Clone())
	require.Nil(t, (&llm.Request{}).Clone().Messages)
}

func TestPublicMessageRedactsAddresses(t *testing.T) {
	cases := []struct{ in, want string }{
		{`Post "http://10.1.2.3:8000/v1/chat/completions": dial tcp 10.1.2.3:8000: connect: connection refused`,
			`Post "<address>": dial tcp <address>: connect: connection refused`},
		{"upstream llm-internal:8001 failed", "upstream <address> failed"},
		{"dial tcp [fd00::5]:443: i/o timeout", "dial tcp <address>: i/o timeout"},
		{"peer fe80::1 reset", "peer <address> reset"},
		{"the model is busy, try again at 12:30", "the model is busy, try again at 12:30"},
	}
	for _, c := range cases {
		if got := llm.RedactAddresses(c.in); got != c.want {
			t.Errorf("llm.RedactAddresses(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	e := &llm.Error{Kind: llm.Network, Message: "connection failed", Err: errors.New(`dial tcp 10.0.0.7:11434: connection refused`)}
	if got := llm.PublicMessage(fmt.Errorf("wrapped: %w", e)); got != "llm: network: connection failed" {
		t.Errorf("PublicMessage = %q", got)
	}
	if !strings.Contains(e.Error(), "10.0.0.7") {
		t.Errorf("Error() keeps the cause for the logs: %q", e.Error())
	}
	e = &llm.Error{Kind: llm.Server, Status: 502, Message: "bad gateway from http://gpu-7.internal:9000"}
	if got := e.Public(); got != "llm: server (HTTP 502): bad gateway from <address>" {
		t.Errorf("Public = %q", got)
	}
}
