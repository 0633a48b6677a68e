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

// structuredToolDescription describes the forced tool of the fallback path.
const structuredToolDescription = "Return your complete answer as the arguments of this call."

// Structured asks for one JSON object matching schema and returns it
// validated.
//
// With useJSONSchema the request gets ResponseFormat json_schema (strict,
// named name) and no tools, and the reply text is parsed; code fences and
// prose around the JSON are tolerated (the first top-level JSON object in the
// text is taken). Without it, the request's tools are replaced by exactly one
// tool name whose parameters are schema, forced with ToolChoice{Mode:"tool"}
// and ParallelToolCalls false, and the first call of that tool supplies the
// arguments. req itself is not modified.
//
// Either way the JSON is validated against schema (resolved once and cached by
// its text) with github.com/google/jsonschema-go. A reply that cannot be
// parsed or does not validate yields a *SchemaError (wrapping ErrUnparsable or
// ErrInvalid) together with the Response, so the caller can build a
// corrective turn. Provider errors are returned as they are; an unusable
// schema is an ordinary error.
func Structured(ctx context.Context, p Provider, req *Request, schema json.RawMessage, name string,
	useJSONSchema bool) (json.RawMessage, Response, error) {
	resolved, err := resolveSchema(schema)
	if err != nil {
		return nil, Response{}, fmt.Errorf("llm: structured output %q: %w", name, err)
	}
	resp, err := Collect(p.Stream(ctx, structuredRequest(req, schema, name, useJSONSchema)))
	if err != nil {
		return nil, resp, err
	}
	raw, err := structuredReply(resp, name, useJSONSchema)
	if err != nil {
		return nil, resp, err
	}
	if err := validate(resolved, raw); err != nil {
		return raw, resp, err
	}
	return raw, resp, nil
}

// structuredRequest copies req and applies the chosen structured-output mode.
func structuredRequest(req *Request, schema json.RawMessage, name string, useJSONSchema bool) *Request {
	r := req.Clone()
	if r == nil {
		r = &Request{}
	}
	if useJSONSchema {
		r.ResponseFormat = &ResponseFormat{Type: FormatJSONSchema, Name: name, Schema: schema, Strict: true}
		r.Tools, r.ToolChoice, r.ParallelToolCalls = nil, ToolChoice{}, nil
		return r
	}
	parallel := false
	r.ResponseFormat = nil
	r.Tools = []Tool{{Name: name, Description: structuredToolDescription, Parameters: schema}}
	r.ToolChoice = ToolChoice{Mode: ToolChoiceTool, Name: name}
	r.ParallelToolCalls = &parallel
	return r
}

// structuredReply extracts the JSON object from the reply.
func structuredReply(resp Response, name string, useJSONSchema bool) (json.RawMessage, error) {
	text := resp.Message.Content
	if !useJSONSchema {
		text = ""
		found := false
		for _, c := range resp.Message.ToolCalls {
			if c.Name == name {
				text, found = c.Arguments, true
				break
			}
		}
		if !found {
			return nil, &SchemaError{Raw: resp.Message.Content, Cause: ErrUnparsable,
				Problems: []string{fmt.Sprintf("the reply has no call of the tool %q", name)}}
		}
	}
	raw, ok := ExtractJSONObject(text)
	if !ok {
		return nil, &SchemaError{Raw: text, Cause: ErrUnparsable,
			Problems: []string{"the reply contains no complete JSON object"}}
	}
	return raw, nil
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
