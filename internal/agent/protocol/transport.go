package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

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

// structure is the structured output the composition's format asks for
// (llm.Structure: the one way the module asks for structured output).
func structure(comp *Composition) llm.Structure {
	wire := json.RawMessage(bytes.Clone(comp.WireJSON))
	switch formatOf(comp) {
	case FormatJSONSchema:
		return llm.Structure{Name: SolutionName, Schema: wire, Via: llm.ViaJSONSchema}
	case FormatRespondTool:
		return llm.Structure{Name: RespondTool, Schema: wire, Via: llm.ViaTool, ToolDescription: RespondDescription,
			StrictTool: true}
	}
	// prompt: the schema is printed at the end of the system message (Render).
	return llm.Structure{Name: SolutionName, Schema: wire, Via: llm.ViaPrompt}
}

// BuildRequest builds the provider request for the composition's format
// (§2.6). Model is left to the caller.
func BuildRequest(comp *Composition, system, user string) *llm.Request {
	if comp == nil {
		comp = &Composition{}
	}
	return structure(comp).Request(&llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: user},
	}})
}

// Extract returns the solution's JSON text from a collected reply (§2.6):
// llm.Structure.Reply (json_schema: the content, one code fence
// unwrapped; respond tool: the first respond call's arguments, other calls
// ignored with a warning; prompt: the first JSON object of the text).
// Errors are reported as solution_unparsable.
func Extract(comp *Composition, reply llm.Message) ([]byte, []Warning, error) {
	if comp == nil {
		comp = &Composition{}
	}
	text, extra, err := structure(comp).Reply(reply)
	var warnings []Warning
	if extra > 0 {
		warnings = append(warnings, Warning{Code: WarnExtraRespondCalls,
			Message: fmt.Sprintf("%d extra tool call(s) ignored; the first %s call was used", extra, RespondTool)})
	}
	var se *llm.SchemaError
	if errors.As(err, &se) {
		return nil, warnings, errors.New(se.Problem())
	}
	if err != nil {
		return nil, warnings, err
	}
	return []byte(text), warnings, nil
}
