package llm

import (
	"encoding/json"
	"slices"
)

// Role is the author of a message.
type Role string

// The message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation sent to a model, or the assistant
// reply collected from a stream.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`  // assistant reasoning text; never sent back upstream
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`  // assistant
	ToolCallID string     `json:"toolCallId,omitempty"` // tool result
	Name       string     `json:"name,omitempty"`       // tool name of a tool result
}

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // raw JSON text, as the model produced it
}

// Tool declares a function the model may call.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema; sent byte for byte (property order kept)
	// Strict asks the provider to enforce Parameters exactly (OpenAI
	// function `strict`); providers without the option ignore it.
	Strict bool `json:"strict,omitempty"`
}

// ToolChoiceMode says whether and how the model must call tools.
type ToolChoiceMode string

// The tool choice modes. The zero value leaves the choice to the provider.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required"
	ToolChoiceTool     ToolChoiceMode = "tool" // force the tool named in ToolChoice.Name
)

// ToolChoice constrains tool calling. Providers ignore it when a request has
// no tools.
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode,omitempty"`
	Name string         `json:"name,omitempty"` // for Mode == ToolChoiceTool
}

// The response format types.
const (
	FormatText       = "text"
	FormatJSONSchema = "json_schema"
)

// ResponseFormat asks for plain text or for JSON matching a schema.
type ResponseFormat struct {
	Type   string          `json:"type"` // FormatText or FormatJSONSchema
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict bool            `json:"strict,omitempty"`
}

// ReasoningConfig turns model reasoning on with an effort level.
type ReasoningConfig struct {
	Effort string `json:"effort,omitempty"` // "low", "medium" or "high"
}

// Request is one model turn. Nil pointers and zero values mean "provider
// default".
type Request struct {
	Model             string           `json:"model"`
	Messages          []Message        `json:"messages"`
	Tools             []Tool           `json:"tools,omitempty"`
	ToolChoice        ToolChoice       `json:"toolChoice,omitzero"`
	ResponseFormat    *ResponseFormat  `json:"responseFormat,omitempty"`
	Temperature       *float64         `json:"temperature,omitempty"`
	TopP              *float64         `json:"topP,omitempty"`
	MaxOutputTokens   int              `json:"maxOutputTokens,omitempty"`
	Reasoning         *ReasoningConfig `json:"reasoning,omitempty"` // nil = provider default
	ParallelToolCalls *bool            `json:"parallelToolCalls,omitempty"`
}

// Clone returns a deep copy of r: no slice, pointer or raw JSON is shared.
func (r *Request) Clone() *Request {
	if r == nil {
		return nil
	}
	c := *r
	c.Messages = slices.Clone(r.Messages)
	for i := range c.Messages {
		c.Messages[i].ToolCalls = slices.Clone(c.Messages[i].ToolCalls)
	}
	c.Tools = slices.Clone(r.Tools)
	for i := range c.Tools {
		c.Tools[i].Parameters = slices.Clone(c.Tools[i].Parameters)
	}
	if r.ResponseFormat != nil {
		f := *r.ResponseFormat
		f.Schema = slices.Clone(f.Schema)
		c.ResponseFormat = &f
	}
	c.Temperature = clonePtr(r.Temperature)
	c.TopP = clonePtr(r.TopP)
	c.Reasoning = clonePtr(r.Reasoning)
	c.ParallelToolCalls = clonePtr(r.ParallelToolCalls)
	return &c
}

// LastUserMessage returns the content of the last user message, or "".
func (r *Request) LastUserMessage() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == RoleUser {
			return r.Messages[i].Content
		}
	}
	return ""
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
