package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/aitexteditor/aite/internal/llm"
)

// ServeProvider returns a Server handler that answers every Chat Completions
// request with what p streams for it: the request body is decoded into an
// llm.Request (messages with tool calls and results, tools, tool choice,
// response format) and p's events are written as SSE chunks (text,
// reasoning, tool calls, usage, finish). So one fake model (a Scripted, an
// oracle) serves both a provider in-process and the real adapter over
// HTTP. A stream error becomes an HTTP 500 before any chunk, or an error
// chunk after some.
func ServeProvider(p llm.Provider) func(Request) Response {
	return func(r Request) Response {
		req, err := DecodeChatRequest(r.Body)
		if err != nil {
			return Response{Status: http.StatusBadRequest, Body: fmt.Sprintf(`{"error":{"message":%s}}`, Quote(err.Error()))}
		}
		chunks := []string{RoleChunk()}
		for ev, err := range p.Stream(context.Background(), req) {
			if err != nil {
				if len(chunks) == 1 {
					return Response{Status: http.StatusInternalServerError, Body: fmt.Sprintf(`{"error":{"message":%s}}`, Quote(err.Error()))}
				}
				return Response{Chunks: append(chunks, ErrorChunk(500, err.Error())), NoDone: true}
			}
			chunks = append(chunks, eventChunks(ev)...)
		}
		return Response{Chunks: chunks}
	}
}

// eventChunks writes one stream event as Chat Completions chunks.
func eventChunks(ev llm.Event) []string {
	switch ev.Kind {
	case llm.EventTextDelta:
		return []string{ContentChunk(ev.Text)}
	case llm.EventReasoningDelta:
		return []string{ReasoningChunk(ev.Text)}
	case llm.EventToolCallStart:
		return []string{ToolCallChunk(ToolFrag{Index: ev.Index, ID: ev.Call.ID, Name: ev.Call.Name})}
	case llm.EventToolCallDelta:
		return []string{ToolCallChunk(ToolFrag{Index: ev.Index, Args: ev.Text})}
	case llm.EventUsage:
		return []string{UsageChunk(ev.Usage.InputTokens, ev.Usage.OutputTokens, ev.Usage.CachedInputTokens)}
	case llm.EventFinish:
		return []string{FinishChunk(string(ev.Finish))}
	}
	return nil
}

// chatRequest is the part of a Chat Completions request DecodeChatRequest
// reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// DecodeChatRequest reads an OpenAI Chat Completions request body into an
// llm.Request.
func DecodeChatRequest(body []byte) (*llm.Request, error) {
	var c chatRequest
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("llmtest: not a chat completions request: %w", err)
	}
	req := &llm.Request{Model: c.Model}
	for _, m := range c.Messages {
		msg := llm.Message{Role: llm.Role(m.Role), Content: content(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range c.Tools {
		req.Tools = append(req.Tools, llm.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	req.ToolChoice = toolChoice(c.ToolChoice)
	if f := c.ResponseFormat; f != nil {
		req.ResponseFormat = &llm.ResponseFormat{Type: f.Type, Name: f.JSONSchema.Name, Schema: f.JSONSchema.Schema}
	}
	return req, nil
}

// content reads a message content: a string or an array of text parts.
func content(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	out := ""
	for _, p := range parts {
		out += p.Text
	}
	return out
}

func toolChoice(raw json.RawMessage) llm.ToolChoice {
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		return llm.ToolChoice{Mode: llm.ToolChoiceMode(mode)}
	}
	var named struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &named) == nil && named.Function.Name != "" {
		return llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: named.Function.Name}
	}
	return llm.ToolChoice{}
}

// Listen starts a Server outside a test, on addr (host:port; port 0 picks
// one), answering every request with fn: a fake endpoint for trying the
// command line by hand. Close it when done.
func Listen(addr string, fn func(Request) Response) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{handler: fn}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Listener.Close()
	s.Listener = l
	s.Start()
	return s, nil
}
