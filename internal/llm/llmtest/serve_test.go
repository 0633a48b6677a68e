package llmtest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

// TestServeProviderRoundTrip serves a scripted provider over the fake
// server and reads it back through the real adapter: the provider sees the
// request the adapter sent, the adapter gets the provider's turns.
func TestServeProviderRoundTrip(t *testing.T) {
	p := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("editor-read", `{"pointer":"3:1.p2"}`)).WithUsage(llm.Usage{InputTokens: 120, OutputTokens: 9, CachedInputTokens: 100}),
		llmtest.Join(llmtest.Reasoning("thinking"), llmtest.Chunks("Found ", "it.\nANSWER: 3:1.p2")),
	)
	srv := llmtest.NewServerFunc(t, llmtest.ServeProvider(p))
	client := srv.Provider(openai.Config{APIKey: "k"})
	schema := json.RawMessage(`{"type":"object","properties":{"pointer":{"type":"string"}}}`)
	req := &llm.Request{Model: "m", Tools: []llm.Tool{{Name: "editor-read", Description: "read", Parameters: schema}},
		ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "editor-read"},
		Messages:   []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "where?"}}}

	first, err := llm.Collect(client.Stream(context.Background(), req))
	require.NoError(t, err)
	require.Len(t, first.Message.ToolCalls, 1)
	require.Equal(t, "editor-read", first.Message.ToolCalls[0].Name)
	require.JSONEq(t, `{"pointer":"3:1.p2"}`, first.Message.ToolCalls[0].Arguments)
	require.Equal(t, llm.Usage{InputTokens: 120, OutputTokens: 9, CachedInputTokens: 100}, first.Usage)
	require.Equal(t, llm.FinishToolCalls, first.Finish)

	req.Messages = append(req.Messages, first.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: first.Message.ToolCalls[0].ID, Content: `{"target":"3:1.p2"}`})
	req.ToolChoice = llm.ToolChoice{Mode: llm.ToolChoiceAuto}
	req.ResponseFormat = &llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "answer", Schema: schema}
	second, err := llm.Collect(client.Stream(context.Background(), req))
	require.NoError(t, err)
	require.Equal(t, "Found it.\nANSWER: 3:1.p2", second.Message.Content)
	require.Equal(t, "thinking", second.Message.Reasoning)

	seen := p.Requests()
	require.Len(t, seen, 2)
	require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "editor-read"}, seen[0].ToolChoice)
	require.Equal(t, "editor-read", seen[0].Tools[0].Name)
	require.JSONEq(t, string(schema), string(seen[0].Tools[0].Parameters))
	got := seen[1].Messages
	require.Equal(t, []llm.Role{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool}, []llm.Role{got[0].Role, got[1].Role, got[2].Role, got[3].Role})
	require.Equal(t, "where?", got[1].Content)
	require.Equal(t, first.Message.ToolCalls, got[2].ToolCalls)
	require.Equal(t, first.Message.ToolCalls[0].ID, got[3].ToolCallID)
	require.Equal(t, `{"target":"3:1.p2"}`, got[3].Content)
	require.Equal(t, llm.ToolChoiceAuto, seen[1].ToolChoice.Mode)
	require.Equal(t, "answer", seen[1].ResponseFormat.Name)
}

func TestServeProviderErrors(t *testing.T) {
	p := llmtest.NewScripted(
		llmtest.Fail(&llm.Error{Kind: llm.Server, Message: "down"}),
		llmtest.Text("partial").FailAfter(1, &llm.Error{Kind: llm.Protocol, Message: "cut"}),
	)
	srv := llmtest.NewServerFunc(t, llmtest.ServeProvider(p))
	client := srv.Provider(openai.Config{APIKey: "k", MaxRetries: -1})
	_, err := llm.Collect(client.Stream(context.Background(), &llm.Request{Model: "m"}))
	require.True(t, llm.IsKind(err, llm.Server), "%v", err)
	_, err = llm.Collect(client.Stream(context.Background(), &llm.Request{Model: "m"}))
	require.Error(t, err)

	res, body := post(t, srv, `not json`)
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Contains(t, body, "not a chat completions request")
}

func TestListenOutsideATest(t *testing.T) {
	srv, err := llmtest.Listen("127.0.0.1:0", func(llmtest.Request) llmtest.Response {
		return llmtest.Response{Chunks: []string{llmtest.ContentChunk("hello")}}
	})
	require.NoError(t, err)
	defer srv.Close()
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), srv.URL)
	res, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Contains(t, string(body), `"content":"hello"`)
}
