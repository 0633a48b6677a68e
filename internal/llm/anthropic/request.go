package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/aitexteditor/aite/internal/llm"
)

// Thinking budgets (budget_tokens) by reasoning effort.
const (
	BudgetLow    = 1024
	BudgetMedium = 4096
	BudgetHigh   = 16384
)

// defaultFormatName names the forced tool of a json_schema response format
// that has no name.
const defaultFormatName = "json_response"

// formatToolDescription describes the forced tool of a json_schema format.
const formatToolDescription = "Return your complete answer as the arguments of this call."

// wireTool is a tool as sent. It is encoded by encoding/json and set with
// option.WithJSONSet, because the SDK's input schema keeps properties in a
// map, which would reorder them; models generate in schema order.
type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// build encodes req as the SDK params plus the options of every attempt.
func (p *Provider) build(req *llm.Request) (anthropic.MessageNewParams, []option.RequestOption, error) {
	params := anthropic.MessageNewParams{Model: anthropic.Model(req.Model)}
	var err error
	var system string
	if params.Messages, system, err = messages(req.Messages); err != nil {
		return params, nil, err
	}
	if system != "" {
		params.System = []anthropic.TextBlockParam{{Text: system}}
	}
	maxTokens := p.cfg.MaxTokensDefault
	if req.MaxOutputTokens > 0 {
		maxTokens = req.MaxOutputTokens
	}
	params.MaxTokens = int64(maxTokens)
	if req.Temperature != nil {
		params.Temperature = anthropic.Float(*req.Temperature)
	}
	if req.TopP != nil {
		params.TopP = anthropic.Float(*req.TopP)
	}
	tools, choice, err := toolsAndChoice(req)
	if err != nil {
		return params, nil, err
	}
	params.ToolChoice = choice
	if err := p.thinking(req, &params); err != nil {
		return params, nil, err
	}
	var opts []option.RequestOption
	if len(tools) > 0 {
		opts = append(opts, option.WithJSONSet("tools", tools))
	}
	return params, opts, nil
}

// messages maps the conversation. System messages are joined (blank line
// between) into the system parameter; tool results become tool_result
// blocks of a user message; consecutive messages of one role are merged
// into one, as Anthropic requires. Reasoning text is never sent back.
func messages(in []llm.Message) ([]anthropic.MessageParam, string, error) {
	var out []anthropic.MessageParam
	var system []string
	add := func(role anthropic.MessageParamRole, blocks ...anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, anthropic.MessageParam{Role: role, Content: blocks})
	}
	for i, m := range in {
		switch m.Role {
		case llm.RoleSystem:
			if m.Content != "" {
				system = append(system, m.Content)
			}
		case llm.RoleUser:
			add(anthropic.MessageParamRoleUser, anthropic.NewTextBlock(m.Content))
		case llm.RoleAssistant:
			blocks, err := assistantBlocks(m)
			if err != nil {
				return nil, "", fmt.Errorf("message %d: %w", i, err)
			}
			add(anthropic.MessageParamRoleAssistant, blocks...)
		case llm.RoleTool:
			if m.ToolCallID == "" {
				return nil, "", fmt.Errorf("message %d: tool result without toolCallId", i)
			}
			r := &anthropic.ToolResultBlockParam{ToolUseID: m.ToolCallID}
			if m.Content != "" {
				r.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: m.Content}}}
			}
			add(anthropic.MessageParamRoleUser, anthropic.ContentBlockParamUnion{OfToolResult: r})
		default:
			return nil, "", fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, strings.Join(system, "\n\n"), nil
}

// assistantBlocks maps an assistant turn: its text, then one tool_use block
// per call with the arguments as input ({} when empty). Arguments that are
// not valid JSON are an error: Anthropic takes the input as a JSON object.
func assistantBlocks(m llm.Message) ([]anthropic.ContentBlockParamUnion, error) {
	var blocks []anthropic.ContentBlockParamUnion
	if m.Content != "" {
		blocks = append(blocks, anthropic.NewTextBlock(m.Content))
	}
	for _, c := range m.ToolCalls {
		input := json.RawMessage(strings.TrimSpace(c.Arguments))
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		if !json.Valid(input) {
			return nil, fmt.Errorf("tool call %q (%s): arguments are not valid JSON", c.ID, c.Name)
		}
		blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input, c.Name))
	}
	return blocks, nil
}

// toolsAndChoice maps the tools (plus the forced tool of a json_schema
// response format) and tool_choice: auto → auto, none → none, required →
// any, tool → tool{name}; ParallelToolCalls=false sets
// disable_parallel_tool_use. Both are omitted when there are no tools.
func toolsAndChoice(req *llm.Request) ([]wireTool, anthropic.ToolChoiceUnionParam, error) {
	var choice anthropic.ToolChoiceUnionParam
	tools := make([]wireTool, 0, len(req.Tools)+1)
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Parameters)
		if err != nil {
			return nil, choice, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tools = append(tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	tc := req.ToolChoice
	noParallel := req.ParallelToolCalls != nil && !*req.ParallelToolCalls
	if f := req.ResponseFormat; f != nil {
		switch f.Type {
		case "", llm.FormatText:
		case llm.FormatJSONSchema:
			name := f.Name
			if name == "" {
				name = defaultFormatName
			}
			schema, err := inputSchema(f.Schema)
			if err != nil {
				return nil, choice, fmt.Errorf("response format %q: %w", name, err)
			}
			tools = append(tools, wireTool{Name: name, Description: formatToolDescription, InputSchema: schema})
			tc, noParallel = llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: name}, true
		default:
			return nil, choice, fmt.Errorf("unknown response format type %q", f.Type)
		}
	}
	if len(tools) == 0 {
		return nil, choice, nil
	}
	var disable param.Opt[bool] // the zero value is omitted
	if noParallel {
		disable = anthropic.Bool(true)
	}
	switch tc.Mode {
	case "", llm.ToolChoiceAuto:
		if tc.Mode != "" || noParallel {
			choice.OfAuto = &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: disable}
		}
	case llm.ToolChoiceNone:
		choice.OfNone = &anthropic.ToolChoiceNoneParam{}
	case llm.ToolChoiceRequired:
		choice.OfAny = &anthropic.ToolChoiceAnyParam{DisableParallelToolUse: disable}
	case llm.ToolChoiceTool:
		if tc.Name == "" {
			return nil, choice, fmt.Errorf("tool choice %q without a tool name", tc.Mode)
		}
		choice.OfTool = &anthropic.ToolChoiceToolParam{Name: tc.Name, DisableParallelToolUse: disable}
	default:
		return nil, choice, fmt.Errorf("unknown tool choice mode %q", tc.Mode)
	}
	return tools, choice, nil
}

// inputSchema checks a JSON Schema; an empty one becomes {"type":"object"}.
func inputSchema(s json.RawMessage) (json.RawMessage, error) {
	if len(strings.TrimSpace(string(s))) == 0 {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	if !json.Valid(s) {
		return nil, fmt.Errorf("schema is not valid JSON")
	}
	return s, nil
}
