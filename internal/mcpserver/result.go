package mcpserver

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/tool"
)

// MaxResultText bounds the text of every tool result, in bytes. A longer
// result is paged (see page).
const MaxResultText = 16 << 10

// ErrorCodeMeta is the _meta key of an error result's code (the book
// tools' codes: invalid_arguments, not_found, refused, tool_failed; and
// changed, declined, approval_failed).
const ErrorCodeMeta = "aite/errorCode"

// errorResult is an isError result: the sentence the model reads, and the
// code in _meta for programs. (It has no structured content, so its text
// need not be JSON.)
func errorResult(code, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}},
		Meta: mcp.Meta{ErrorCodeMeta: code}}
}

// errorCode is the code of an error result ("" for other results).
func errorCode(r *mcp.CallToolResult) string {
	code, _ := r.Meta[ErrorCodeMeta].(string)
	return code
}

// fromTool converts a book tool's result: an error keeps its code and text;
// a JSON object becomes the structured content with its text as the copy.
func (s *server) fromTool(r tool.Result) *mcp.CallToolResult {
	if r.IsError {
		code := r.Code
		if code == "" {
			code = "tool_failed"
		}
		return s.bounded(errorResult(code, r.Text))
	}
	return s.bounded(jsonResult(json.RawMessage(r.Text)))
}

// jsonResult is a result whose text is raw and whose structured content is
// raw too when it is a JSON object.
func jsonResult(raw json.RawMessage) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		res.StructuredContent = raw
	}
	return res
}

// valueResult encodes v as the structured content and its text copy.
func (s *server) valueResult(v any) *mcp.CallToolResult {
	b, err := json.Marshal(v) // escaped like the book tools' results
	if err != nil {
		return errorResult("tool_failed", "cannot encode the result: "+err.Error())
	}
	return s.bounded(jsonResult(b))
}

// textOf returns the text of a result's first content.
func textOf(r *mcp.CallToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	if t, ok := r.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return ""
}
