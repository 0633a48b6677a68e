// Package tool is aite's tool layer: a Tool has a name, a model-facing
// description (an embedded .md reviewed like code), a JSON Schema for its
// parameters and a handler.
//
// The rule, one for every way an agent runs (the CLI and the server, the
// platform modes and the solution protocol; internal/agent applies it):
//
//   - Tool failures are results. A handler reports a failure the model can
//     act on — a bad pointer, a refused edit, an unknown cursor, invalid
//     arguments — by returning a Result with IsError set, a Code and a text
//     that says what went wrong and what to do instead. The model reads it.
//     Code tool_failed (or none) is retried up to budget.tool.retryCount
//     times; the other codes never are.
//   - A Go error means infrastructure broke (storage failed, a connection
//     dropped, a bug: a panic counts as a Go error). The call is aborted and
//     retried like a timeout, up to budget.tool.retryCount times, since
//     infrastructure may come back; then the call fails — tool_failed with
//     the error's text in the platform modes, activity_failed in a protocol
//     run — and the run goes on (PLATFORM_API § 7.1: tool failures never
//     end a run). Only the run's own context (canceled, its deadline) ends
//     the run.
//   - A call that applied edits returns them in Result.Edits; code that
//     cannot return a Result (a protocol activity) reports each with
//     ReportEdit before it returns.
package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/llm"
)

// Result is what a call returns to the model (Text) and to the runtime.
type Result struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError,omitempty"`
	// Code classifies an error result (PLATFORM_API § 7.1 codes where they
	// apply): invalid_arguments, tool_not_enabled (an unknown name),
	// not_found, refused, tool_failed.
	Code string `json:"code,omitempty"`
	// Edits lists the domain edits the call applied.
	Edits []Edit `json:"edits,omitempty"`
}

// Edit describes one applied domain edit.
type Edit struct {
	Book       string `json:"book"`
	Op         string `json:"op"`
	Pointer    string `json:"pointer"`
	NewPointer string `json:"newPointer,omitempty"`
	Before     string `json:"before,omitempty"`
	After      string `json:"after,omitempty"`
	// Revision is the document revision the edit produced, when the
	// document is versioned (the server's documents); 0 otherwise.
	Revision int `json:"revision,omitempty"`
}

// Errorf returns an error result with a code.
func Errorf(code, format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true, Code: code}
}

// Tool is one callable tool.
type Tool interface {
	Name() string
	Description() string
	Parameters() json.RawMessage
	Call(ctx context.Context, args json.RawMessage) (Result, error)
}

// typed is a Tool whose parameters are the struct P.
type typed[P any] struct {
	name, desc string
	*params
	handler func(context.Context, P) (Result, error)
}

// New makes a typed tool: the JSON Schema comes from P's fields (json names;
// `jsonschema:"..."` tags are the descriptions; omitempty fields are
// optional; `default:"<JSON>"` and `enum:"a,b"` tags add a default and an
// enum; every property has one JSON type, see schemaFor), and arguments
// are validated against it, and absent ones given their defaults, before
// the handler runs.
func New[P any](name, description string, handler func(context.Context, P) (Result, error)) (Tool, error) {
	p, err := paramsOf[P]()
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", name, err)
	}
	return &typed[P]{name: name, desc: strings.TrimSpace(description), params: p, handler: handler}, nil
}

// Must is New that panics on a schema error (for package-level tool tables
// whose parameter types are fixed at compile time).
func Must[P any](name, description string, handler func(context.Context, P) (Result, error)) Tool {
	t, err := New(name, description, handler)
	if err != nil {
		panic(err)
	}
	return t
}

func (t *typed[P]) Name() string                { return t.name }
func (t *typed[P]) Description() string         { return t.desc }
func (t *typed[P]) Parameters() json.RawMessage { return t.schema }

// Call validates the arguments, fills in the defaults and runs the handler.
func (t *typed[P]) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	p, bad, err := t.decode(args)
	switch {
	case err != nil:
		return Result{}, err
	case bad != nil:
		return *bad, nil
	}
	res, err := t.handler(ctx, p)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return res, err
}

// decode turns the arguments into P. Arguments the schema refuses give an
// invalid_arguments result; err is only for a schema that cannot work.
func (t *typed[P]) decode(args json.RawMessage) (P, *Result, error) {
	var p P
	args, bad, err := t.check(args)
	if bad != nil || err != nil {
		return p, bad, err
	}
	if err := json.Unmarshal(args, &p); err != nil {
		return p, t.invalid("%v", err), nil
	}
	return p, nil, nil
}

// check validates the arguments and fills in the defaults.
func (t *typed[P]) check(args json.RawMessage) (json.RawMessage, *Result, error) {
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		r := Errorf("invalid_arguments", "Invalid arguments for %s: not valid JSON (%v). Send a JSON object matching the parameters: %s",
			t.name, err, t.schema)
		return nil, &r, nil
	}
	coerced := t.numbersAsStrings(v, args)
	if err := t.resolved.Validate(v); err != nil {
		return nil, t.invalid("%s", oneLine(err.Error())), nil
	}
	if !t.defaults && !coerced {
		return args, nil, nil
	}
	if t.defaults {
		if err := t.resolved.ApplyDefaults(&v); err != nil {
			return nil, nil, fmt.Errorf("tool %s: defaults: %w", t.name, err)
		}
	}
	out, err := json.Marshal(v)
	return out, nil, err
}

// numbersAsStrings turns a number given for a string parameter into its
// text, as written: a model (or a client's form) that sends a pointer's
// bare ID as a number, `"pointer": 24`, means "24". It reports whether it
// changed anything.
func (t *typed[P]) numbersAsStrings(v any, args json.RawMessage) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	var raw map[string]json.RawMessage
	changed := false
	for _, name := range t.stringProps {
		if _, num := m[name].(float64); !num {
			continue
		}
		if raw == nil && json.Unmarshal(args, &raw) != nil {
			return changed
		}
		m[name], changed = strings.TrimSpace(string(raw[name])), true
	}
	return changed
}

func (t *typed[P]) invalid(format string, a ...any) *Result {
	r := Errorf("invalid_arguments", "Invalid arguments for %s: %s. The parameters are: %s", t.name, fmt.Sprintf(format, a...), t.schema)
	return &r
}

// Check validates args against a tool's schema and fills in the defaults
// without running the tool: it returns the arguments the handler would
// get, or the invalid_arguments result Call would return (bad). Hosts that
// must look at the arguments before the call (an edit shown for approval
// first) use it. Tools not made by New pass the arguments through.
func Check(t Tool, args json.RawMessage) (normalized json.RawMessage, bad *Result, err error) {
	if c, ok := t.(interface {
		check(json.RawMessage) (json.RawMessage, *Result, error)
	}); ok {
		return c.check(args)
	}
	return args, nil, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Registry is an ordered set of tools with unique names.
type Registry struct {
	list   []Tool
	byName map[string]Tool
}

// ErrDuplicate is returned when two tools share a name.
var ErrDuplicate = errors.New("duplicate tool name")

// NewRegistry makes a registry of tools, in the given order.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range tools {
		if r.byName[t.Name()] != nil {
			return nil, fmt.Errorf("%w: %s", ErrDuplicate, t.Name())
		}
		r.byName[t.Name()] = t
		r.list = append(r.list, t)
	}
	return r, nil
}

// Get returns a tool by name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Tools returns the tools in order.
func (r *Registry) Tools() []Tool { return r.list }

// Names returns the tool names in order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.list))
	for i, t := range r.list {
		out[i] = t.Name()
	}
	return out
}

// LLMTools returns the tool definitions for a model request.
func (r *Registry) LLMTools() []llm.Tool {
	out := make([]llm.Tool, len(r.list))
	for i, t := range r.list {
		out[i] = llm.Tool{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()}
	}
	return out
}

// Call runs a tool by name. An unknown name is an error result that lists
// the real tools, so the model can correct itself.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	t, ok := r.byName[name]
	if !ok {
		return NotEnabled(name, r.Names()), nil
	}
	return t.Call(ctx, args)
}

// NotEnabled is the result of a call to a tool the agent does not offer
// (now): tool_not_enabled, naming the tools it may call instead.
func NotEnabled(name string, offered []string) Result {
	if len(offered) == 0 {
		return Errorf("tool_not_enabled", "Tool is not enabled for this agent: %s. No tools are offered now: answer in text.", name)
	}
	return Errorf("tool_not_enabled", "Tool is not enabled for this agent: %s. The tools are: %s. Call one of them by its exact name.",
		name, strings.Join(offered, ", "))
}
