package openai

import (
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/aitexteditor/aite/internal/llm"
)

// built is an encoded request, ready to be sent with or without
// stream_options.
type built struct {
	params openai.ChatCompletionNewParams
	opts   []option.RequestOption
}

// with returns the params and options of one attempt.
func (b built) with(streamOptions bool) (openai.ChatCompletionNewParams, []option.RequestOption) {
	params := b.params
	if streamOptions {
		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	return params, b.opts
}

// wireTool is a function tool as sent. It is encoded by encoding/json and set
// with option.WithJSONSet, because the SDK's tool parameters are a
// map[string]any, which would reorder the schema's properties; models
// generate in schema order, so the order is part of the contract.
type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
}

// build encodes req.
func (p *Provider) build(req *llm.Request) (built, error) {
	var b built
	msgs, err := messages(req.Messages)
	if err != nil {
		return b, err
	}
	b.params = openai.ChatCompletionNewParams{Model: req.Model, Messages: msgs}
	if req.Temperature != nil {
		b.params.Temperature = openai.Float(*req.Temperature)
	}
	if req.TopP != nil {
		b.params.TopP = openai.Float(*req.TopP)
	}
	if req.MaxOutputTokens > 0 {
		b.params.MaxTokens = openai.Int(int64(req.MaxOutputTokens))
	}
	if err := p.tools(req, &b); err != nil {
		return b, err
	}
	if err := responseFormat(req.ResponseFormat, &b.params); err != nil {
		return b, err
	}
	p.reasoning(req.Reasoning, &b)
	return b, nil
}

// messages maps the conversation. Reasoning text is never sent back.
func messages(in []llm.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(in))
	for i, m := range in {
		switch m.Role {
		case llm.RoleSystem:
			out = append(out, openai.SystemMessage(m.Content))
		case llm.RoleUser:
			out = append(out, openai.UserMessage(m.Content))
		case llm.RoleAssistant:
			out = append(out, assistantMessage(m))
		case llm.RoleTool:
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// assistantMessage maps an assistant turn with its tool calls.
func assistantMessage(m llm.Message) openai.ChatCompletionMessageParamUnion {
	a := &openai.ChatCompletionAssistantMessageParam{}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = openai.String(m.Content)
	}
	for _, c := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
			},
		})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: a}
}

// tools sets tools, tool_choice and parallel_tool_calls; the last two only
// when there are tools.
func (p *Provider) tools(req *llm.Request, b *built) error {
	if len(req.Tools) == 0 {
		return nil
	}
	wire := make([]wireTool, len(req.Tools))
	for i, t := range req.Tools {
		if len(t.Parameters) > 0 && !json.Valid(t.Parameters) {
			return fmt.Errorf("tool %q: parameters are not valid JSON", t.Name)
		}
		wire[i] = wireTool{Type: "function", Function: wireFunction{t.Name, t.Description, t.Parameters, t.Strict}}
	}
	b.opts = append(b.opts, option.WithJSONSet("tools", wire))
	if req.ParallelToolCalls != nil {
		b.params.ParallelToolCalls = openai.Bool(*req.ParallelToolCalls)
	}
	switch tc := req.ToolChoice; tc.Mode {
	case "":
	case llm.ToolChoiceAuto, llm.ToolChoiceNone, llm.ToolChoiceRequired:
		b.params.ToolChoice.OfAuto = openai.String(string(tc.Mode))
	case llm.ToolChoiceTool:
		b.params.ToolChoice = openai.ToolChoiceOptionFunctionToolChoice(
			openai.ChatCompletionNamedToolChoiceFunctionParam{Name: tc.Name})
	default:
		return fmt.Errorf("unknown tool choice mode %q", tc.Mode)
	}
	return nil
}

// responseFormat maps text and json_schema formats.
func responseFormat(f *llm.ResponseFormat, params *openai.ChatCompletionNewParams) error {
	if f == nil {
		return nil
	}
	switch f.Type {
	case "", llm.FormatText:
		params.ResponseFormat.OfText = &shared.ResponseFormatTextParam{}
	case llm.FormatJSONSchema:
		if !json.Valid(f.Schema) {
			return fmt.Errorf("response format %q: schema is not valid JSON", f.Name)
		}
		params.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name: f.Name, Schema: f.Schema, Strict: openai.Bool(f.Strict),
			},
		}
	default:
		return fmt.Errorf("unknown response format type %q", f.Type)
	}
	return nil
}

// reasoning sends the reasoning request in the configured style, plus the
// thinking switch.
func (p *Provider) reasoning(r *llm.ReasoningConfig, b *built) {
	if r == nil {
		return
	}
	if p.cfg.ThinkingParam != "" {
		b.opts = append(b.opts, option.WithJSONSet(p.cfg.ThinkingParam, r.Effort != "none"))
	}
	if r.Effort == "" || r.Effort == "none" {
		return
	}
	if p.cfg.ReasoningStyle == ReasoningEffort {
		b.params.ReasoningEffort = shared.ReasoningEffort(r.Effort)
		return
	}
	b.opts = append(b.opts, option.WithJSONSet("reasoning", map[string]string{"effort": r.Effort}))
}
