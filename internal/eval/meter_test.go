package eval

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func TestMeterCountsEveryCall(t *testing.T) {
	p := llmtest.NewScripted(
		llmtest.Text("reported").WithUsage(llm.Usage{InputTokens: 100, CachedInputTokens: 40, OutputTokens: 20}),
		llmtest.Text("not reported: twelve words of text that the meter estimates for us"),
		llmtest.Calls(llmtest.Call("editor-read", `{"pointer":"3"}`)),
		llmtest.Fail(&llm.Error{Kind: llm.Server, Status: 502, Message: "bad gateway"}),
	)
	m := &Meter{Provider: p}
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "a question of forty characters, exactly"}}}
	for range 4 {
		_, _ = llm.Collect(m.Stream(context.Background(), req))
	}
	calls, u, estimated := m.Totals()
	require.Equal(t, 4, calls)
	require.Equal(t, 3, estimated)
	in := llm.EstimateTokens(req.Messages[0].Content)
	out := llm.EstimateTokens("not reported: twelve words of text that the meter estimates for us") + llm.EstimateTokens(`{"pointer":"3"}`)
	require.Equal(t, llm.Usage{InputTokens: 100 + 3*in, CachedInputTokens: 40, OutputTokens: 20 + out}, u)
	require.True(t, llm.IsKind(m.Err(), llm.Server))
	require.False(t, Fatal(m.Err()), "a server error is the model's failure on one task")
}

func TestMeterCountsACallTheConsumerStopped(t *testing.T) {
	m := &Meter{Provider: llmtest.NewScripted(llmtest.Chunks("a", "b", "c"))}
	for range m.Stream(context.Background(), &llm.Request{}) {
		break
	}
	calls, _, _ := m.Totals()
	require.Equal(t, 1, calls)
}

func TestFatal(t *testing.T) {
	for kind, fatal := range map[llm.ErrorKind]bool{llm.Auth: true, llm.BadRequest: true, llm.Network: true,
		llm.Server: false, llm.RateLimited: false, llm.Timeout: false, llm.Protocol: false, llm.ContextTooLong: false} {
		require.Equal(t, fatal, Fatal(&llm.Error{Kind: kind}), kind)
	}
	require.False(t, Fatal(nil))
}
