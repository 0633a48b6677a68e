package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/llm"
)

// Provider mapping (§2.6). Agent tools are never sent as native tools: they
// live inside the solution schema.

// The forced tool of the respond_tool format.
const (
	RespondTool        = "respond"
	RespondDescription = "Return your complete decision for this turn."
	// SolutionName names the json_schema response format.
	SolutionName = "solution"
)

// BuildRequest builds the provider request for the composition's format
// (§2.6). Model is left to the caller.
func BuildRequest(comp *Composition, system, user string) *llm.Request {
	if comp == nil {
		comp = &Composition{}
	}
	req := &llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: user},
	}}
	wire := json.RawMessage(bytes.Clone(comp.WireJSON))
	switch formatOf(comp) {
	case FormatJSONSchema:
		req.ResponseFormat = &llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: SolutionName, Schema: wire, Strict: true}
	case FormatRespondTool:
		req.Tools = []llm.Tool{{Name: RespondTool, Description: RespondDescription, Parameters: wire, Strict: true}}
		req.ToolChoice = llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: RespondTool}
		parallel := false
		req.ParallelToolCalls = &parallel
	}
	// prompt: the schema is printed at the end of the system message (Render).
	return req
}

// Extract returns the solution's JSON text from a collected reply (§2.6).
// Errors are plain errors; the runtime reports them as solution_unparsable.
func Extract(comp *Composition, reply llm.Message) ([]byte, []Warning, error) {
	if comp == nil {
		comp = &Composition{}
	}
	switch formatOf(comp) {
	case FormatJSONSchema:
		text := unfence(reply.Content)
		if text == "" {
			return nil, nil, errors.New("the reply has no content")
		}
		return []byte(text), nil, nil
	case FormatRespondTool:
		return extractRespond(reply)
	default:
		obj, ok := llm.ExtractJSONObject(reply.Content)
		if !ok {
			return nil, nil, errors.New("the reply holds no JSON object")
		}
		return []byte(obj), nil, nil
	}
}

// extractRespond takes the arguments of the first respond call; any other
// call is ignored with a warning.
func extractRespond(reply llm.Message) ([]byte, []Warning, error) {
	found := -1
	for i, c := range reply.ToolCalls {
		if c.Name == RespondTool {
			found = i
			break
		}
	}
	if found < 0 {
		if len(reply.ToolCalls) > 0 {
			return nil, nil, fmt.Errorf("the reply has no %s call (it called %s)", RespondTool, reply.ToolCalls[0].Name)
		}
		return nil, nil, fmt.Errorf("the reply has no %s call", RespondTool)
	}
	var warnings []Warning
	if extra := len(reply.ToolCalls) - 1; extra > 0 {
		warnings = append(warnings, Warning{Code: WarnExtraRespondCalls,
			Message: fmt.Sprintf("%d extra tool call(s) ignored; the first %s call was used", extra, RespondTool)})
	}
	args := strings.TrimSpace(reply.ToolCalls[found].Arguments)
	if args == "" {
		return nil, warnings, fmt.Errorf("the %s call has no arguments", RespondTool)
	}
	return []byte(args), warnings, nil
}

// unfence trims text and unwraps one Markdown code fence (``` or ```json)
// around it.
func unfence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	body := s[3 : len(s)-3]
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		body = strings.TrimSpace(body)
		if len(body) >= 4 && strings.EqualFold(body[:4], "json") {
			body = strings.TrimSpace(body[4:])
		}
		return body
	}
	if lang := strings.TrimSpace(body[:nl]); lang == "" || strings.EqualFold(lang, "json") {
		return strings.TrimSpace(body[nl+1:])
	}
	return s
}
