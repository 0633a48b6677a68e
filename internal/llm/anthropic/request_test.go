package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// sent runs req against a server answering "ok" and returns the request the
// server received.
func sent(t *testing.T, req *llm.Request, mod ...func(*Config)) captured {
	t.Helper()
	srv := newServer(t, textReply("ok"))
	_, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}, mod...), req)
	require.NoError(t, err)
	reqs := srv.requests()
	require.Len(t, reqs, 1)
	return reqs[0]
}

func TestRequestBodyMapping(t *testing.T) {
	temp, topP, parallel := 0.2, 0.9, false
	req := &llm.Request{
		Model: "claude-sonnet-4-5",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are terse."},
			{Role: llm.RoleUser, Content: "Weather in Paris and Rome?"},
			{Role: llm.RoleSystem, Content: "Use metric units."},
			{Role: llm.RoleAssistant, Content: "Checking.", Reasoning: "never sent", ToolCalls: []llm.ToolCall{
				{ID: "toolu_1", Name: "weather", Arguments: `{"city":"Paris"}`},
				{ID: "toolu_2", Name: "weather", Arguments: ""},
			}},
			{Role: llm.RoleTool, ToolCallID: "toolu_1", Name: "weather", Content: "18°C"},
			{Role: llm.RoleTool, ToolCallID: "toolu_2", Name: "weather", Content: ""},
			{Role: llm.RoleUser, Content: "And tomorrow?"},
		},
		Tools: []llm.Tool{{Name: "weather", Description: "Current weather",
			Parameters: json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"city":{"type":"string"}},"required":["city"]}`)}},
		ToolChoice:        llm.ToolChoice{Mode: llm.ToolChoiceAuto},
		ParallelToolCalls: &parallel,
		Temperature:       &temp,
		TopP:              &topP,
		MaxOutputTokens:   1000,
	}
	c := sent(t, req)
	require.Equal(t, "/v1/messages", c.path)
	require.JSONEq(t, `{
		"model": "claude-sonnet-4-5",
		"max_tokens": 1000,
		"stream": true,
		"temperature": 0.2,
		"top_p": 0.9,
		"system": [{"type":"text","text":"You are terse.\n\nUse metric units."}],
		"messages": [
			{"role":"user","content":[{"type":"text","text":"Weather in Paris and Rome?"}]},
			{"role":"assistant","content":[
				{"type":"text","text":"Checking."},
				{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}},
				{"type":"tool_use","id":"toolu_2","name":"weather","input":{}}
			]},
			{"role":"user","content":[
				{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"18°C"}]},
				{"type":"tool_result","tool_use_id":"toolu_2"},
				{"type":"text","text":"And tomorrow?"}
			]}
		],
		"tools": [{"name":"weather","description":"Current weather",
			"input_schema":{"type":"object","properties":{"zeta":{"type":"string"},"city":{"type":"string"}},"required":["city"]}}],
		"tool_choice": {"type":"auto","disable_parallel_tool_use":true}
	}`, c.body)
	require.Contains(t, c.body, `"properties":{"zeta":{"type":"string"},"city":{"type":"string"}}`, "schema order kept")
}

func TestMaxTokensDefault(t *testing.T) {
	require.Equal(t, "4096", field(t, sent(t, simpleRequest()).body, "max_tokens"))
	c := sent(t, simpleRequest(), func(c *Config) { c.MaxTokensDefault = 1234 })
	require.Equal(t, "1234", field(t, c.body, "max_tokens"))
	require.Empty(t, field(t, c.body, "thinking"))
	require.Empty(t, field(t, c.body, "tools"))
	require.Empty(t, field(t, c.body, "tool_choice"))
	require.Empty(t, field(t, c.body, "system"))
}

func TestToolChoiceMapping(t *testing.T) {
	cases := []struct {
		choice   llm.ToolChoice
		parallel *bool
		want     string
	}{
		{llm.ToolChoice{}, nil, ``},
		{llm.ToolChoice{Mode: llm.ToolChoiceAuto}, nil, `{"type":"auto"}`},
		{llm.ToolChoice{Mode: llm.ToolChoiceNone}, nil, `{"type":"none"}`},
		{llm.ToolChoice{Mode: llm.ToolChoiceRequired}, nil, `{"type":"any"}`},
		{llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "f"}, nil, `{"type":"tool","name":"f"}`},
		{llm.ToolChoice{}, new(false), `{"type":"auto","disable_parallel_tool_use":true}`},
		{llm.ToolChoice{Mode: llm.ToolChoiceRequired}, new(false), `{"type":"any","disable_parallel_tool_use":true}`},
		{llm.ToolChoice{Mode: llm.ToolChoiceRequired}, new(true), `{"type":"any"}`},
	}
	for _, c := range cases {
		req := simpleRequest()
		req.Tools = []llm.Tool{{Name: "f"}}
		req.ToolChoice, req.ParallelToolCalls = c.choice, c.parallel
		body := sent(t, req).body
		require.JSONEq(t, `[{"name":"f","input_schema":{"type":"object"}}]`, field(t, body, "tools"))
		if c.want == "" {
			require.Empty(t, field(t, body, "tool_choice"))
			continue
		}
		require.JSONEq(t, c.want, field(t, body, "tool_choice"), "%+v", c.choice)
	}
	// Strict has no Anthropic counterpart here: it is dropped, not sent.
	req := simpleRequest()
	req.Tools = []llm.Tool{{Name: "f", Strict: true}}
	require.JSONEq(t, `[{"name":"f","input_schema":{"type":"object"}}]`, field(t, sent(t, req).body, "tools"))
	// Without tools the choice is not sent.
	req = simpleRequest()
	req.ToolChoice = llm.ToolChoice{Mode: llm.ToolChoiceRequired}
	require.Empty(t, field(t, sent(t, req).body, "tool_choice"))
}

func TestThinkingBudget(t *testing.T) {
	cases := []struct {
		effort    string
		maxOutput int
		budget    int
		maxTokens int
	}{
		{"low", 0, 1024, 4096 + 1024},
		{"medium", 0, 4096, 4096 + 4096},
		{"", 0, 4096, 4096 + 4096},
		{"high", 2000, 16384, 2000 + 16384},
	}
	for _, c := range cases {
		req := simpleRequest()
		req.Reasoning = &llm.ReasoningConfig{Effort: c.effort}
		req.MaxOutputTokens = c.maxOutput
		temp := 0.5
		req.Temperature = &temp
		body := sent(t, req).body
		want, _ := json.Marshal(map[string]any{"type": "enabled", "budget_tokens": c.budget})
		require.JSONEq(t, string(want), field(t, body, "thinking"), c.effort)
		require.Equal(t, c.maxTokens, atoi(t, field(t, body, "max_tokens")), c.effort)
		require.Empty(t, field(t, body, "temperature"), "temperature is not sent with thinking")
	}
}

func TestThinkingLeftOff(t *testing.T) {
	none := simpleRequest()
	none.Reasoning = &llm.ReasoningConfig{Effort: "none"}
	forced := simpleRequest()
	forced.Reasoning = &llm.ReasoningConfig{Effort: "high"}
	forced.ResponseFormat = &llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "out", Schema: json.RawMessage(`{"type":"object"}`)}
	cycle := simpleRequest()
	cycle.Reasoning = &llm.ReasoningConfig{Effort: "low"}
	cycle.Messages = append(cycle.Messages,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "t1", Name: "f", Arguments: "{}"}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "t1", Content: "done"})
	for name, req := range map[string]*llm.Request{"none": none, "forced": forced, "cycle": cycle} {
		body := sent(t, req).body
		require.Empty(t, field(t, body, "thinking"), name)
		require.Equal(t, "4096", field(t, body, "max_tokens"), name)
	}
	require.JSONEq(t, `{"type":"tool","name":"out","disable_parallel_tool_use":true}`, field(t, sent(t, forced).body, "tool_choice"))
}

func TestEncodingErrorsAreBadRequest(t *testing.T) {
	bad := []*llm.Request{
		{Model: "m", Messages: []llm.Message{{Role: "robot", Content: "x"}}},
		{Model: "m", Messages: []llm.Message{{Role: llm.RoleTool, Content: "x"}}},
		{Model: "m", Messages: []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "f", Arguments: `{"cut`}}}}},
		{Model: "m", Tools: []llm.Tool{{Name: "f", Parameters: json.RawMessage(`{`)}}},
		{Model: "m", Tools: []llm.Tool{{Name: "f"}}, ToolChoice: llm.ToolChoice{Mode: "sometimes"}},
		{Model: "m", Reasoning: &llm.ReasoningConfig{Effort: "extreme"}},
		{Model: "m", ResponseFormat: &llm.ResponseFormat{Type: "yaml"}},
		nil,
	}
	srv := newServer(t, textReply("never"))
	for i, req := range bad {
		_, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), req)
		require.Equal(t, llm.BadRequest, llm.KindOf(err), "case %d", i)
	}
	require.Empty(t, srv.requests())
}

func TestHeaders(t *testing.T) {
	srv := newServer(t, textReply("ok"))
	p := newTestProvider(srv, &llmtest.Sleeps{}, func(c *Config) {
		c.BaseURL = srv.URL + "/v1/"
		c.Headers = map[string]string{"anthropic-beta": "interleaved-thinking-2025-05-14", "X-Trace": "abc"}
	})
	_, err := collect(context.Background(), p, simpleRequest())
	require.NoError(t, err)
	c := srv.requests()[0]
	require.Equal(t, "/v1/messages", c.path)
	require.Equal(t, "sk-ant-test-secret-123", c.header.Get("X-Api-Key"))
	require.Empty(t, c.header.Get("Authorization"), "Anthropic takes the key as x-api-key only")
	require.Equal(t, "2023-06-01", c.header.Get("Anthropic-Version"))
	require.Equal(t, "interleaved-thinking-2025-05-14", c.header.Get("Anthropic-Beta"))
	require.Equal(t, "abc", c.header.Get("X-Trace"))
	require.Equal(t, "application/json", c.header.Get("Content-Type"))

	srv2 := newServer(t, textReply("ok"))
	_, err = collect(context.Background(), newTestProvider(srv2, &llmtest.Sleeps{}, func(c *Config) { c.APIKey = "" }), simpleRequest())
	require.NoError(t, err)
	_, has := srv2.requests()[0].header["X-Api-Key"]
	require.False(t, has, "no key, no header")
}

func TestAmbientEnvironmentIsIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	srv := newServer(t, textReply("ok"))
	_, err := collect(context.Background(), newTestProvider(srv, &llmtest.Sleeps{}), simpleRequest())
	require.NoError(t, err)
	require.Equal(t, "sk-ant-test-secret-123", srv.requests()[0].header.Get("X-Api-Key"))
}

func TestKeyMaskedInLogs(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := newServer(t,
		reply{status: http.StatusUnauthorized, body: errorBodyJSON("authentication_error", "invalid x-api-key")},
		reply{status: http.StatusInternalServerError, body: "{}"}, textReply("ok"))
	p := newTestProvider(srv, &llmtest.Sleeps{}, func(c *Config) {
		c.Logger = logger
		c.Headers = map[string]string{"Authorization": "Bearer sk-gateway-token-456"}
	})
	_, err := collect(context.Background(), p, simpleRequest())
	require.Equal(t, llm.Auth, llm.KindOf(err))
	require.NotContains(t, err.Error(), "sk-ant-test-secret-123")
	_, err = collect(context.Background(), p, simpleRequest())
	require.NoError(t, err)
	logs := buf.String()
	require.Contains(t, logs, "llm/anthropic: http")
	require.Contains(t, logs, "llm/anthropic: retrying")
	require.Contains(t, logs, "X-Api-Key: ***")
	require.Contains(t, logs, "Authorization: ***")
	require.NotContains(t, logs, "sk-ant-test-secret-123")
	require.NotContains(t, logs, "sk-gateway-token-456")
	require.Equal(t, 3, strings.Count(logs, "llm/anthropic: http"))
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	require.NoError(t, json.Unmarshal([]byte(s), &n))
	return n
}
