package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/openai"
)

// schema lists its properties out of alphabetical order on purpose.
const schema = `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}},"required":["zeta","alpha"],"additionalProperties":false}`

func ptr[T any](v T) *T { return &v }

// sent streams req against a fresh server and returns the request it saw.
func sent(t *testing.T, cfg openai.Config, req *llm.Request) llmtest.Request {
	t.Helper()
	srv := llmtest.NewServer(t, okStream)
	_, err := drain(srv.Provider(cfg).Stream(context.Background(), req))
	require.NoError(t, err)
	return srv.Requests()[0]
}

func TestRequestBody(t *testing.T) {
	req := &llm.Request{
		Model: "gpt-x",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "be brief"},
			{Role: llm.RoleUser, Content: "find it"},
			{Role: llm.RoleAssistant, Reasoning: "never sent back", ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "find", Arguments: `{"q":"x"}`}, {ID: "c2", Name: "read", Arguments: `{}`}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Name: "find", Content: "found"},
			{Role: llm.RoleTool, ToolCallID: "c2", Name: "read", Content: "text"},
			{Role: llm.RoleAssistant, Content: "done"},
		},
		Tools:             []llm.Tool{{Name: "find", Description: "Find text.", Parameters: json.RawMessage(schema)}, {Name: "read"}},
		ToolChoice:        llm.ToolChoice{Mode: llm.ToolChoiceRequired},
		Temperature:       ptr(0.2),
		TopP:              ptr(0.9),
		MaxOutputTokens:   256,
		ParallelToolCalls: ptr(false),
	}
	r := sent(t, openai.Config{APIKey: "k", Headers: map[string]string{"X-Title": "aite"}}, req)
	require.Equal(t, "POST", r.Method)
	require.Equal(t, "/v1/chat/completions", r.Path)
	require.Equal(t, "Bearer k", r.Header.Get("Authorization"))
	require.Equal(t, "aite", r.Header.Get("X-Title"))
	var want map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{
		"model":"gpt-x","stream":true,"stream_options":{"include_usage":true},
		"temperature":0.2,"top_p":0.9,"max_tokens":256,"parallel_tool_calls":false,"tool_choice":"required",
		"messages":[
			{"role":"system","content":"be brief"},
			{"role":"user","content":"find it"},
			{"role":"assistant","tool_calls":[
				{"id":"c1","type":"function","function":{"name":"find","arguments":"{\"q\":\"x\"}"}},
				{"id":"c2","type":"function","function":{"name":"read","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"c1","content":"found"},
			{"role":"tool","tool_call_id":"c2","content":"text"},
			{"role":"assistant","content":"done"}],
		"tools":[
			{"type":"function","function":{"name":"find","description":"Find text.","parameters":`+schema+`}},
			{"type":"function","function":{"name":"read"}}]}`), &want))
	require.Equal(t, want, r.JSON)
	require.Contains(t, string(r.Body), `"properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}}`,
		"schema property order must survive")
}

func TestRequestOptions(t *testing.T) {
	tools := []llm.Tool{{Name: "f"}}
	user := []llm.Message{{Role: llm.RoleUser, Content: "x"}}
	cases := []struct {
		name string
		cfg  openai.Config
		req  *llm.Request
		want map[string]any // expected values; nil means the key is absent
	}{
		{"tool_choice auto", openai.Config{}, &llm.Request{Messages: user, Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceAuto}},
			map[string]any{"tool_choice": "auto"}},
		{"tool_choice none", openai.Config{}, &llm.Request{Messages: user, Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceNone}},
			map[string]any{"tool_choice": "none"}},
		{"tool_choice forced", openai.Config{}, &llm.Request{Messages: user, Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "f"}},
			map[string]any{"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "f"}}}},
		{"no tools: no tool_choice, no parallel_tool_calls", openai.Config{},
			&llm.Request{Messages: user, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired}, ParallelToolCalls: ptr(true)},
			map[string]any{"tool_choice": nil, "parallel_tool_calls": nil, "tools": nil}},
		{"strict function", openai.Config{}, &llm.Request{Messages: user,
			Tools:      []llm.Tool{{Name: "respond", Description: "d", Parameters: json.RawMessage(schema), Strict: true}},
			ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "respond"}, ParallelToolCalls: ptr(false)},
			map[string]any{"tools": []any{map[string]any{"type": "function", "function": map[string]any{
				"name": "respond", "description": "d", "parameters": decode(schema), "strict": true}}},
				"parallel_tool_calls": false,
				"tool_choice":         map[string]any{"type": "function", "function": map[string]any{"name": "respond"}}}},
		{"non-strict function: no strict key", openai.Config{}, &llm.Request{Messages: user, Tools: tools},
			map[string]any{"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "f"}}}}},
		{"json_schema response format", openai.Config{}, &llm.Request{Messages: user,
			ResponseFormat: &llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "answer", Schema: json.RawMessage(schema), Strict: true}},
			map[string]any{"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{
				"name": "answer", "strict": true, "schema": decode(schema)}}}},
		{"reasoning object and thinking param", openai.Config{ThinkingParam: "enable_thinking"},
			&llm.Request{Messages: user, Reasoning: &llm.ReasoningConfig{Effort: "high"}},
			map[string]any{"reasoning": map[string]any{"effort": "high"}, "enable_thinking": true, "reasoning_effort": nil}},
		{"reasoning_effort style", openai.Config{ReasoningStyle: openai.ReasoningEffort},
			&llm.Request{Messages: user, Reasoning: &llm.ReasoningConfig{Effort: "low"}},
			map[string]any{"reasoning_effort": "low", "reasoning": nil}},
		{"thinking off, nested param path", openai.Config{ThinkingParam: "chat_template_kwargs.enable_thinking"},
			&llm.Request{Messages: user, Reasoning: &llm.ReasoningConfig{Effort: "none"}},
			map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}, "reasoning": nil}},
		{"no reasoning config: nothing sent", openai.Config{ThinkingParam: "enable_thinking"}, &llm.Request{Messages: user},
			map[string]any{"enable_thinking": nil, "reasoning": nil}},
		{"stream options disabled", openai.Config{DisableStreamOptions: true}, &llm.Request{Messages: user},
			map[string]any{"stream_options": nil, "stream": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := sent(t, tc.cfg, tc.req)
			for k, v := range tc.want {
				if v == nil {
					require.NotContains(t, r.JSON, k)
					continue
				}
				require.Equal(t, v, r.JSON[k], k)
			}
		})
	}
}

func decode(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

func TestEndpointPaths(t *testing.T) {
	cases := []struct{ base, chatPath, want string }{
		{"", "", "/v1/chat/completions"},
		{"/v1", "", "/v1/chat/completions"},
		{"/v1/", "", "/v1/chat/completions"},
		{"/api/v1", "", "/api/v1/chat/completions"},
		{"/compatible-mode/v1", "", "/compatible-mode/v1/chat/completions"},
		{"/api/paas/v4", "", "/api/paas/v4/chat/completions"},
		{"/openai", "", "/openai/v1/chat/completions"},
		{"/ignored", "/newapi/chat", "/newapi/chat"},
	}
	for _, tc := range cases {
		t.Run(tc.base+tc.chatPath, func(t *testing.T) {
			srv := llmtest.NewServer(t, okStream)
			p := openai.New(openai.Config{BaseURL: srv.URL + tc.base, ChatPath: tc.chatPath, HTTPClient: srv.Client()})
			_, err := drain(p.Stream(context.Background(), userRequest("hi")))
			require.NoError(t, err)
			require.Equal(t, tc.want, srv.Requests()[0].Path)
		})
	}
}

func TestAmbientEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "env-secret")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/")
	t.Setenv("OPENAI_ORG_ID", "env-org")
	srv := llmtest.NewServer(t, okStream)
	_, err := drain(srv.Provider(openai.Config{}).Stream(context.Background(), userRequest("hi")))
	require.NoError(t, err)
	h := srv.Requests()[0].Header
	require.Empty(t, h.Get("Authorization"))
	require.Empty(t, h.Get("OpenAI-Organization"))
}

func TestRequestEncodingErrors(t *testing.T) {
	srv := llmtest.NewServer(t)
	p := srv.Provider(openai.Config{})
	for _, req := range []*llm.Request{
		{Messages: []llm.Message{{Role: "robot", Content: "x"}}},
		{Messages: []llm.Message{{Role: llm.RoleUser}}, Tools: []llm.Tool{{Name: "f", Parameters: json.RawMessage(`{`)}}},
		{Messages: []llm.Message{{Role: llm.RoleUser}}, Tools: []llm.Tool{{Name: "f"}}, ToolChoice: llm.ToolChoice{Mode: "maybe"}},
		{Messages: []llm.Message{{Role: llm.RoleUser}}, ResponseFormat: &llm.ResponseFormat{Type: "xml"}},
	} {
		_, err := drain(p.Stream(context.Background(), req))
		require.True(t, llm.IsKind(err, llm.BadRequest), "got %v", err)
	}
	require.Empty(t, srv.Requests())
}

func TestStructuredOverHTTP(t *testing.T) {
	good := `{"zeta":"z","alpha":1}`
	bad := `{"zeta":5}`
	contentReply := func(s string) llmtest.Response {
		return llmtest.Response{Chunks: []string{llmtest.ContentChunk(s), llmtest.FinishChunk("stop")}}
	}
	callReply := func(args string) llmtest.Response {
		return llmtest.Response{Chunks: []string{llmtest.ToolCallChunk(TF{ID: "r", Name: "answer", Args: args}),
			llmtest.FinishChunk("tool_calls")}}
	}
	cases := []struct {
		name       string
		jsonSchema bool
		reply      llmtest.Response
		wantErr    error
	}{
		{"json_schema valid, fenced", true, contentReply("Here:\n```json\n" + good + "\n```"), nil},
		{"json_schema invalid", true, contentReply(bad), llm.ErrInvalid},
		{"json_schema unparsable", true, contentReply(`{"zeta": "z", `), llm.ErrUnparsable},
		{"forced tool valid", false, callReply(good), nil},
		{"forced tool invalid", false, callReply(bad), llm.ErrInvalid},
		{"forced tool not called", false, contentReply(good), llm.ErrUnparsable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.reply)
			p := srv.Provider(openai.Config{JSONSchema: tc.jsonSchema})
			require.Equal(t, tc.jsonSchema, llm.SupportsJSONSchema(p, "m"))
			req := userRequest("answer")
			req.Tools = []llm.Tool{{Name: "agent_tool"}}
			via := llm.ViaTool
			if tc.jsonSchema {
				via = llm.ViaJSONSchema
			}
			raw, _, err := llm.Structured(context.Background(), p, req,
				llm.Structure{Name: "answer", Schema: json.RawMessage(schema), Via: via, Validate: true})
			body := srv.Requests()[0].JSON
			if tc.jsonSchema {
				require.Equal(t, "json_schema", body["response_format"].(map[string]any)["type"])
				require.Contains(t, string(srv.Requests()[0].Body), `"schema":`+schema, "schema sent byte for byte")
				require.NotContains(t, body, "tools")
			} else {
				require.Len(t, body["tools"], 1)
				require.Equal(t, map[string]any{"type": "function", "function": map[string]any{"name": "answer"}}, body["tool_choice"])
				require.Equal(t, false, body["parallel_tool_calls"])
			}
			require.Len(t, req.Tools, 1, "the caller's request is not modified")
			if tc.wantErr == nil {
				require.NoError(t, err)
				require.JSONEq(t, good, string(raw))
				return
			}
			var se *llm.SchemaError
			require.ErrorAs(t, err, &se)
			require.True(t, errors.Is(err, tc.wantErr), "got %v", err)
			require.NotEmpty(t, se.Problems)
		})
	}
}
