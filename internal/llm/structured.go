package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// DefaultToolDescription describes the forced tool of ViaTool.
const DefaultToolDescription = "Return your complete answer as the arguments of this call."

// Via says how a structured reply is asked of a model.
type Via string

// The ways to ask for a structured reply.
const (
	// ViaJSONSchema: native structured output, a strict response format
	// named Structure.Name; the reply's content holds the JSON.
	ViaJSONSchema Via = "json_schema"
	// ViaTool: exactly one tool named Structure.Name whose parameters are
	// the schema, forced, no parallel calls; its arguments hold the JSON.
	ViaTool Via = "tool"
	// ViaPrompt: neither (the caller puts the schema in the prompt); the
	// first JSON object of the content holds the JSON.
	ViaPrompt Via = "prompt"
)

// Structure is a structured reply asked of a model: one JSON value matching
// Schema. It is the one way the module asks for structured output (the
// cursor agent's decisions, the solution protocol's solutions): Request
// builds the request, Reply takes the JSON out of the reply, and Structured
// does both around one model call.
type Structure struct {
	Name   string
	Schema json.RawMessage
	Via    Via
	// ToolDescription is the forced tool's description (ViaTool; default
	// DefaultToolDescription). StrictTool marks the tool strict (the
	// response format of ViaJSONSchema always is).
	ToolDescription string
	StrictTool      bool
	// Validate makes Structured check the JSON against Schema.
	Validate bool
}

// Request returns a copy of req that asks for s: its tools, tool choice and
// response format are replaced; req itself is not modified.
func (s Structure) Request(req *Request) *Request {
	r := req.Clone()
	if r == nil {
		r = &Request{}
	}
	r.Tools, r.ToolChoice, r.ParallelToolCalls, r.ResponseFormat = nil, ToolChoice{}, nil, nil
	switch s.Via {
	case ViaJSONSchema:
		r.ResponseFormat = &ResponseFormat{Type: FormatJSONSchema, Name: s.Name, Schema: s.Schema, Strict: true}
	case ViaTool:
		desc := s.ToolDescription
		if desc == "" {
			desc = DefaultToolDescription
		}
		parallel := false
		r.Tools = []Tool{{Name: s.Name, Description: desc, Parameters: s.Schema, Strict: s.StrictTool}}
		r.ToolChoice = ToolChoice{Mode: ToolChoiceTool, Name: s.Name}
		r.ParallelToolCalls = &parallel
	}
	return r
}

// Reply returns the JSON text of a reply to s as the model gave it:
//
//   - ViaJSONSchema: the content, trimmed, one Markdown code fence (```
//     or ```json) unwrapped, and nothing more (a reply with prose around
//     its JSON fails to parse later, where the caller can say so);
//   - ViaTool: the arguments of the first call of the tool; extra counts
//     the reply's other calls;
//   - ViaPrompt: the first JSON object of the content, prose and fences
//     skipped (ExtractJSONObject).
//
// A reply without the JSON is a *SchemaError wrapping ErrUnparsable.
func (s Structure) Reply(msg Message) (text string, extra int, err error) {
	switch s.Via {
	case ViaJSONSchema:
		text = unfence(msg.Content)
		if text == "" {
			return "", 0, unparsable(msg.Content, "the reply has no content")
		}
		return text, 0, nil
	case ViaTool:
		return s.toolReply(msg)
	}
	obj, ok := ExtractJSONObject(msg.Content)
	if !ok {
		return "", 0, unparsable(msg.Content, "the reply holds no JSON object")
	}
	return string(obj), 0, nil
}

// toolReply takes the arguments of the first call of the tool s.Name.
func (s Structure) toolReply(msg Message) (string, int, error) {
	for _, c := range msg.ToolCalls {
		if c.Name != s.Name {
			continue
		}
		extra := len(msg.ToolCalls) - 1
		args := strings.TrimSpace(c.Arguments)
		if args == "" {
			return "", extra, unparsable(c.Arguments, fmt.Sprintf("the call of the tool %q has no arguments", s.Name))
		}
		return args, extra, nil
	}
	problem := fmt.Sprintf("the reply has no call of the tool %q", s.Name)
	if len(msg.ToolCalls) > 0 {
		problem += fmt.Sprintf(" (it called %s)", msg.ToolCalls[0].Name)
	}
	return "", 0, unparsable(msg.Content, problem)
}

func unparsable(raw, problem string) *SchemaError {
	return &SchemaError{Raw: raw, Cause: ErrUnparsable, Problems: []string{problem}}
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

// Structured asks p for one structured reply: it sends req as s asks
// (Request), collects the reply and returns its JSON (Reply; prose around
// the JSON of a ViaJSONSchema reply is tolerated here: the first JSON
// object of the text is taken) with the Response. With s.Validate the JSON
// is validated against s.Schema (resolved once and cached by its text)
// with github.com/google/jsonschema-go.
//
// A reply that cannot be parsed or does not validate yields a *SchemaError
// (wrapping ErrUnparsable or ErrInvalid) together with the Response, so the
// caller can build a corrective turn. Provider errors are returned as they
// are; an unusable schema is an ordinary error.
func Structured(ctx context.Context, p Provider, req *Request, s Structure) (json.RawMessage, Response, error) {
	var resolved *jsonschema.Resolved
	if s.Validate {
		var err error
		if resolved, err = resolveSchema(s.Schema); err != nil {
			return nil, Response{}, fmt.Errorf("llm: structured output %q: %w", s.Name, err)
		}
	}
	resp, err := Collect(p.Stream(ctx, s.Request(req)))
	if err != nil {
		return nil, resp, err
	}
	text, _, err := s.Reply(resp.Message)
	if err != nil {
		return nil, resp, err
	}
	raw, ok := ExtractJSONObject(text)
	if !ok {
		return nil, resp, unparsable(text, "the reply contains no complete JSON object")
	}
	if resolved != nil {
		if err := validate(resolved, raw); err != nil {
			return raw, resp, err
		}
	}
	return raw, resp, nil
}

// ExtractJSONObject returns the first top-level JSON object in text: the
// whole text when it is one, else the first '{' from which one complete,
// valid JSON object can be decoded, so code fences and prose around it are
// skipped. A '{' inside a broken object is not a candidate: after a syntax
// error the scan resumes where the error was found, and a truncated object
// ends the search. It reports false when there is no object.
func ExtractJSONObject(text string) (json.RawMessage, bool) {
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed), true
	}
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		i += j
		var raw json.RawMessage
		err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&raw)
		if err == nil {
			return raw, true
		}
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			break // truncated: everything after i belongs to the broken object
		}
		i += max(int(se.Offset), 1)
	}
	return nil, false
}

// validate checks raw against the resolved schema.
func validate(resolved *jsonschema.Resolved, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return &SchemaError{Raw: string(raw), Cause: ErrUnparsable, Problems: []string{err.Error()}}
	}
	if err := resolved.Validate(v); err != nil {
		return &SchemaError{Raw: string(raw), Cause: ErrInvalid, Problems: problemLines(err)}
	}
	return nil
}

// problemLines splits a validator error into its non-empty lines, without
// the validator's "validating root: " prefix. (The validator stops at the
// first failing keyword, except inside anyOf, which reports every branch.)
func problemLines(err error) []string {
	var out []string
	for line := range strings.SplitSeq(err.Error(), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "validating root: ")
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// schemaCache holds resolved schemas by their text; it is cleared when full.
var schemaCache = struct {
	sync.Mutex
	m map[string]*jsonschema.Resolved
}{m: map[string]*jsonschema.Resolved{}}

const schemaCacheMax = 256

// resolveSchema parses and resolves schema, once per distinct text.
func resolveSchema(schema json.RawMessage) (*jsonschema.Resolved, error) {
	key := string(bytes.TrimSpace(schema))
	schemaCache.Lock()
	defer schemaCache.Unlock()
	if r, ok := schemaCache.m[key]; ok {
		return r, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema: %w", err)
	}
	if len(schemaCache.m) >= schemaCacheMax {
		clear(schemaCache.m)
	}
	schemaCache.m[key] = r
	return r, nil
}
