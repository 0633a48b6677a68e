package agentctx

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"
)

// Type is the closed set of context message types (§1.3).
type Type string

// Message types.
const (
	TypeInput   Type = "input"
	TypeState   Type = "state"
	TypeData    Type = "data"
	TypeSystem  Type = "system"
	TypeText    Type = "text"
	TypeTool    Type = "tool"
	TypeAdvisor Type = "advisor"
	TypeAdvice  Type = "advice"
	TypeError   Type = "error"
)

// DataLike reports whether messages of this type carry a value folded by
// (kind, instance): input, state and data.
func (t Type) DataLike() bool { return t == TypeInput || t == TypeState || t == TypeData }

// CallRef is the hidden `_call` field of a write: which call produced it.
type CallRef struct {
	ToolID string `json:"toolId"`
	Tool   string `json:"tool"`
	Turn   int    `json:"turn"`
	Index  int    `json:"index"`
}

// Message is one normalised context message. Which fields are meaningful
// depends on Type; parsing fills only those.
type Message struct {
	Type Type

	// Data-like messages (input, state, data).
	Kind        string // "input", "state" or the data kind ("data" by default)
	Instance    string // "" = global
	Value       any    // ordered JSON value (see Decode)
	HasValue    bool   // false when the message carries no value (e.g. schema only)
	Schema      any    // nil = absent
	Description string

	// Hidden fields of writes; never part of the value, never rendered.
	Path         string // dotted `_path`, "" = the root of the kind
	OutputMethod Method // "" for messages that fold by root-level deep merge
	Call         *CallRef
	Date         string

	Text    string        // system (`message`) and text (`text`)
	Tools   []ToolDef     // tool: one entry per name in `tool`, or one `ref`
	Advisor *AdvisorPatch // advisor
	Advice  *Advice       // advice
	Error   *ErrorInfo    // error
}

// IsWrite reports whether the message is an output-path write, replayed with
// its method rather than deep-merged at the root.
func (m Message) IsWrite() bool { return m.OutputMethod != "" }

// ToolDef is one tool definition: a name with its JSON Schema, or a reference
// to a registered tool (Ref set, Schema nil).
type ToolDef struct {
	Name   string
	Schema any
	Ref    string
}

// AdvisorPatch is an advisor message after alias normalisation. Nil pointers
// and Has* false mean "field absent": a patch only changes present fields.
type AdvisorPatch struct {
	ID          string
	On          *string // nil = unset (`on` absent or null)
	Role        *string // `role` or its alias `persona`
	Schema      any     // `schema` or its alias `answer`
	HasSchema   bool
	Scopes      []string
	HasScopes   bool
	IsInstanced *bool
	Weight      *float64
}

// Advice is a stored advisor opinion (§1.5).
type Advice struct {
	ID       string
	Instance string
	Turn     int
	Opinion  any
	Weights  any
	RawCalls string
	Warnings []string
}

// ErrorInfo is the `data` of an error message (§1.5).
type ErrorInfo struct {
	Turn    int
	Call    any // ordered {index, _tool, _instance?}, nil when absent
	Code    string
	Message string
	Details any
}

var (
	kindRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_]\w*$`) })
	segmentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w-]+$`) })
)

// ParseMessage parses and normalises one JSON context message.
func ParseMessage(data []byte) (Message, error) {
	v, err := Decode(data)
	if err != nil {
		return Message{}, errorf(CodeMessageInvalid, "%v", err)
	}
	obj, ok := v.(*Object)
	if !ok {
		return Message{}, errorf(CodeMessageInvalid, "message is not a JSON object")
	}
	return MessageFromObject(obj)
}

// MessageFromObject normalises one decoded message (aliases, value forms).
func MessageFromObject(obj *Object) (Message, error) {
	typ, _, err := optString(obj, "type")
	if err != nil {
		return Message{}, err
	}
	kind, _, err := optString(obj, "kind")
	if err != nil {
		return Message{}, err
	}
	if kind == "advisor" && (typ == "" || typ == string(TypeData)) {
		typ = string(TypeAdvisor) // `kind:"advisor"` is an alias of `type:"advisor"`
	}
	switch t := Type(typ); t {
	case TypeInput, TypeState, TypeData:
		return parseDataLike(obj, t, kind)
	case TypeSystem:
		return parseTextual(obj, t, "message")
	case TypeText:
		return parseTextual(obj, t, "text")
	case TypeTool:
		return parseTool(obj)
	case TypeAdvisor:
		return parseAdvisor(obj)
	case TypeAdvice:
		return parseAdvice(obj)
	case TypeError:
		return parseError(obj)
	default:
		return Message{}, errorf(CodeMessageInvalid, "unknown message type %q", typ)
	}
}

// ParseContext parses a JSON array of messages, keeping their order.
func ParseContext(data []byte) (Context, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, errorf(CodeMessageInvalid, "%v", err)
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, errorf(CodeMessageInvalid, "context is not a JSON array")
	}
	ctx := make(Context, 0, len(arr))
	for i, e := range arr {
		obj, ok := e.(*Object)
		if !ok {
			return nil, errorf(CodeMessageInvalid, "message %d is not a JSON object", i)
		}
		m, err := MessageFromObject(obj)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		ctx = append(ctx, m)
	}
	return ctx, nil
}

func parseTextual(obj *Object, t Type, field string) (Message, error) {
	s, _, err := optString(obj, field)
	return Message{Type: t, Text: s}, err
}

func parseTool(obj *Object) (Message, error) {
	m := Message{Type: TypeTool}
	ref, hasRef, err := optString(obj, "ref")
	if err != nil {
		return m, err
	}
	raw, hasTool := obj.Get("tool")
	switch {
	case hasRef && hasTool:
		return m, errorf(CodeMessageInvalid, "tool message has both `tool` and `ref`")
	case hasRef:
		m.Tools = []ToolDef{{Name: ref, Ref: ref}}
		return m, nil
	}
	defs, ok := raw.(*Object)
	if !ok || defs.Len() == 0 {
		return m, errorf(CodeMessageInvalid, "tool message needs `tool:{name: schema}` or `ref`")
	}
	for _, name := range defs.Keys() {
		s, _ := defs.Get(name)
		m.Tools = append(m.Tools, ToolDef{Name: name, Schema: s})
	}
	return m, nil
}

func parseAdvice(obj *Object) (Message, error) {
	a := &Advice{}
	var err error
	if a.ID, _, err = optString(obj, "id"); err != nil {
		return Message{}, err
	}
	if a.Instance, _, err = optString(obj, "instance"); err != nil {
		return Message{}, err
	}
	if a.Turn, err = optInt(obj, "turn"); err != nil {
		return Message{}, err
	}
	if a.RawCalls, _, err = optString(obj, "rawCalls"); err != nil {
		return Message{}, err
	}
	if a.Warnings, _, err = optStrings(obj, "warnings"); err != nil {
		return Message{}, err
	}
	a.Opinion, _ = obj.Get("opinion")
	a.Weights, _ = obj.Get("weights")
	return Message{Type: TypeAdvice, Advice: a}, nil
}

func parseError(obj *Object) (Message, error) {
	raw, _ := obj.Get("data")
	d, ok := raw.(*Object)
	if !ok {
		return Message{}, errorf(CodeMessageInvalid, "error message needs a `data` object")
	}
	e := &ErrorInfo{}
	var err error
	if e.Turn, err = optInt(d, "turn"); err != nil {
		return Message{}, err
	}
	if e.Code, _, err = optString(d, "code"); err != nil {
		return Message{}, err
	}
	if e.Message, _, err = optString(d, "message"); err != nil {
		return Message{}, err
	}
	e.Call, _ = d.Get("call")
	e.Details, _ = d.Get("details")
	return Message{Type: TypeError, Error: e}, nil
}

// optString reads an optional string field; null counts as absent.
func optString(obj *Object, key string) (string, bool, error) {
	v, ok := obj.Get(key)
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, errorf(CodeMessageInvalid, "field %q must be a string", key)
	}
	return s, true, nil
}

func optInt(obj *Object, key string) (int, error) {
	f, ok, err := optNumber(obj, key)
	if err != nil || !ok {
		return 0, err
	}
	if f != float64(int(f)) {
		return 0, errorf(CodeMessageInvalid, "field %q must be an integer", key)
	}
	return int(f), nil
}

func optNumber(obj *Object, key string) (float64, bool, error) {
	v, ok := obj.Get(key)
	if !ok || v == nil {
		return 0, false, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false, errorf(CodeMessageInvalid, "field %q must be a number", key)
	}
	f, err := n.Float64()
	if err != nil {
		return 0, false, errorf(CodeMessageInvalid, "field %q: %v", key, err)
	}
	return f, true, nil
}

func optBool(obj *Object, key string) (*bool, error) {
	v, ok := obj.Get(key)
	if !ok || v == nil {
		return nil, nil
	}
	b, ok := v.(bool)
	if !ok {
		return nil, errorf(CodeMessageInvalid, "field %q must be a boolean", key)
	}
	return &b, nil
}

func optStrings(obj *Object, key string) ([]string, bool, error) {
	v, ok := obj.Get(key)
	if !ok || v == nil {
		return nil, false, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, false, errorf(CodeMessageInvalid, "field %q must be an array of strings", key)
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, false, errorf(CodeMessageInvalid, "field %q must be an array of strings", key)
		}
		out = append(out, s)
	}
	return out, true, nil
}
