package llm

import (
	"context"
	"iter"
)

// EventKind names a streamed event.
type EventKind string

// The event kinds.
const (
	EventTextDelta      EventKind = "text_delta"
	EventReasoningDelta EventKind = "reasoning_delta"
	EventToolCallStart  EventKind = "tool_call_start"
	EventToolCallDelta  EventKind = "tool_call_delta"
	EventToolCallEnd    EventKind = "tool_call_end"
	EventUsage          EventKind = "usage"
	EventFinish         EventKind = "finish"
)

// FinishReason says why a model turn ended.
type FinishReason string

// The finish reasons.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
	FinishOther         FinishReason = "other"
)

// Event is one streamed item of a model turn. Which fields are set depends on
// Kind.
type Event struct {
	Kind   EventKind    `json:"kind"`
	Text   string       `json:"text,omitempty"`  // text or reasoning delta, or the argument fragment of tool_call_delta
	Index  int          `json:"index,omitempty"` // tool call index within the turn (0-based, order of first appearance)
	Call   *ToolCall    `json:"call,omitempty"`  // tool_call_start: ID and Name; tool_call_end: the complete call
	Usage  *Usage       `json:"usage,omitempty"`
	Finish FinishReason `json:"finish,omitempty"`
}

// Usage counts the tokens of one model call (or, summed with Add, of many).
// CachedInputTokens is the part of InputTokens served from a prompt cache.
type Usage struct {
	InputTokens       int     `json:"inputTokens"`
	CachedInputTokens int     `json:"cachedInputTokens,omitempty"`
	OutputTokens      int     `json:"outputTokens"`
	Cost              float64 `json:"cost,omitempty"` // 0 when pricing is unknown
}

// Add returns the field-wise sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		Cost:              u.Cost + v.Cost,
	}
}

// Provider streams one model turn. The sequence is lazy: nothing is sent
// before iteration starts, and stopping the iteration early releases the
// upstream connection. Errors are *Error values.
type Provider interface {
	Stream(ctx context.Context, req *Request) iter.Seq2[Event, error]
}

// StructuredProvider is the optional ability of a provider to enforce a JSON
// Schema on the reply (response_format json_schema). Providers without it get
// the forced-tool fallback of [Structured].
type StructuredProvider interface {
	SupportsJSONSchema(model string) bool
}

// SupportsJSONSchema reports whether p declares native JSON Schema output for
// model; false when p does not implement [StructuredProvider].
func SupportsJSONSchema(p Provider, model string) bool {
	sp, ok := p.(StructuredProvider)
	return ok && sp.SupportsJSONSchema(model)
}

// Response is a whole model turn folded from its events.
type Response struct {
	Message Message      // the assistant message: content, reasoning, tool calls
	Usage   Usage        // the last usage event, zero when the provider reported none
	Finish  FinishReason // "" when the stream carried no finish event
}
