package agentdef

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
)

// ProtocolBlock is the `protocol` block of a protocol agent (AGENT_PROTOCOL
// § 5.1), checked but not defaulted: a zero value or a nil pointer means
// "not written", and the protocol runtime applies its own defaults. Enum
// values are accepted in any case and stored lowercase.
type ProtocolBlock struct {
	// OutputSchema and InputSchema are JSON Schema objects as written
	// (strict JSON, key order kept); nil when absent or null.
	OutputSchema json.RawMessage
	InputSchema  json.RawMessage
	// OutputText names the string field of the output streamed as the
	// content block; "" when none.
	OutputText string
	// Context holds the protocol.context entries in order, as written:
	// static context messages, or provider entries {type, kind?, provider}
	// whose value a Go ContextProvider supplies at run start.
	Context []json.RawMessage
	Limits  ProtocolLimits
	// ResponseFormat is "auto", "json_schema", "respond_tool", "prompt",
	// or "" (not written: auto).
	ResponseFormat string
	// ReasoningField is the emitted name of the per-call reasoning field:
	// "_reasoningForCall", its alias "_why", or "" (not written, or off).
	ReasoningField string
	// ReasoningOff is true when reasoningField was written as "": calls
	// carry no reasoning property. Not written: false and ReasoningField "".
	ReasoningOff bool
	// RepairRetries and ErrorWindow are nil when not written (0 is a value).
	RepairRetries *int
	ErrorWindow   *int
	// UnpathedResults is "log", "drop", or "" (not written: log).
	UnpathedResults string
	Approval        ProtocolApproval
	Guard           *ProtocolGuard // nil when not written
}

// ProtocolLimits are protocol.limits; 0 means not written (the default).
type ProtocolLimits struct {
	MaxTurns         int
	MaxParallel      int
	MaxDelegateDepth int
}

// ProtocolApproval is protocol.approval.
type ProtocolApproval struct {
	RequestedScopes string // "ask", "auto", "deny", or "" (not written: ask)
	TimeoutMs       int    // 0: not written (the default)
	// ConfirmTools are the tools whose calls the user confirms before they
	// run (aite extension: edit approval), lowercased and de-duplicated.
	ConfirmTools []string
	// Calls is the confirmation policy of ConfirmTools: "ask", "auto", or
	// "" (not written: ask).
	Calls string
}

// ProtocolGuard is protocol.guard, the built-in minMeanWeight guard policy
// (AGENT_PROTOCOL § 3.2).
type ProtocolGuard struct {
	MinMeanWeight float64  // 0..100; 0 never denies on votes
	Tools         []string // lowercased, as written; empty = all tools
	OnNoVotes     string   // "allow", "deny", or "" (not written: allow)
	// DisagreementSpread is nil when not written (the default, 50).
	DisagreementSpread *float64
}

// AdvisorMessages returns the agent's advisor declarations as context
// messages (agentctx.MessageFromObject after adding type "advisor"), in
// file order. The load checked them, so an error means the AgentDef was
// not made by this package.
func (a *AgentDef) AdvisorMessages() ([]agentctx.Message, error) {
	out := make([]agentctx.Message, 0, len(a.Advisors))
	for i, raw := range a.Advisors {
		obj, err := decodeObject(raw)
		if err == nil {
			var m agentctx.Message
			if m, err = advisorMessage(obj); err == nil {
				out = append(out, m)
				continue
			}
		}
		return nil, fmt.Errorf("advisors[%d]: %w", i, err)
	}
	return out, nil
}

// protocolFile is the protocol block as written, after checkShape.
type protocolFile struct {
	OutputSchema json.RawMessage   `json:"outputSchema"`
	InputSchema  json.RawMessage   `json:"inputSchema"`
	OutputText   string            `json:"outputText"`
	Context      []json.RawMessage `json:"context"`
	Limits       struct {
		MaxTurns         int `json:"maxTurns"`
		MaxParallel      int `json:"maxParallel"`
		MaxDelegateDepth int `json:"maxDelegateDepth"`
	} `json:"limits"`
	ResponseFormat  string  `json:"responseFormat"`
	ReasoningField  *string `json:"reasoningField"`
	RepairRetries   *int    `json:"repairRetries"`
	ErrorWindow     *int    `json:"errorWindow"`
	UnpathedResults string  `json:"unpathedResults"`
	Approval        struct {
		RequestedScopes string   `json:"requestedScopes"`
		TimeoutMs       int      `json:"timeoutMs"`
		ConfirmTools    []string `json:"confirmTools"`
		Calls           string   `json:"calls"`
	} `json:"approval"`
	Guard *struct {
		MinMeanWeight      *float64 `json:"minMeanWeight"`
		Tools              []string `json:"tools"`
		OnNoVotes          string   `json:"onNoVotes"`
		DisagreementSpread *float64 `json:"disagreementSpread"`
	} `json:"guard"`
}

// protocol applies the load rules of AGENT_PROTOCOL § 5.1: keys that need
// a protocol block, the modes a protocol agent may have, then the block and
// the advisors.
func (b *agentBuilder) protocol() error {
	f := b.f
	if f.Protocol == nil {
		if f.Advisors != nil {
			return rejectf("advisors", "advisors need a protocol block (only protocol agents have advisors)")
		}
		for _, tc := range b.toolConfigsAsWritten() {
			switch {
			case tc.file.Latents != nil:
				return rejectf(joinPath(tc.path, "latents"), "latent tools need a protocol block (only protocol agents use them)")
			case tc.file.Delegates != nil:
				return rejectf(joinPath(tc.path, "delegates"), "delegate tools need a protocol block (only protocol agents use them)")
			}
		}
		return nil
	}
	if b.a.Mode == ModePlanExecute {
		return rejectf("protocol", "PLAN_EXECUTE agents cannot be protocol agents (the plan DAG is not supported yet); use REACT or ONESHOT")
	}
	p, err := protocolBlock(f.Protocol)
	if err != nil {
		return err
	}
	for i, name := range f.Protocol.Approval.ConfirmTools {
		if b.env.tools[strings.ToLower(strings.TrimSpace(name))] == ToolLatent {
			return rejectf(indexPath("protocol.approval.confirmTools", i),
				"%q is a latent tool: the model answers its calls, nothing runs, so there is nothing to confirm", name)
		}
	}
	b.a.Protocol = p
	return b.advisors()
}

// toolConfigAsWritten is one toolConfig of the file with its JSON path.
type toolConfigAsWritten struct {
	path string
	file toolConfigFile
}

// stageAsWritten is one stage block of the file with its JSON path.
type stageAsWritten struct {
	path string
	file *stageFile
}

// toolConfigsAsWritten returns the written toolConfigs: the top level,
// then the stages in file-structure order.
func (b *agentBuilder) toolConfigsAsWritten() []toolConfigAsWritten {
	var out []toolConfigAsWritten
	add := func(path string, tc opt[toolConfigFile]) {
		if tc.Set && !tc.Null {
			out = append(out, toolConfigAsWritten{path, tc.V})
		}
	}
	f := b.f
	add("toolConfig", f.ToolConfig)
	stages := []stageAsWritten{{"plain", f.Plain}, {"react", f.React}}
	if pe := f.PlanExecute; pe != nil {
		stages = append(stages, stageAsWritten{"planExecute.plan", pe.Plan}, stageAsWritten{"planExecute.execute", pe.Execute},
			stageAsWritten{"planExecute.summary", pe.Summary})
	}
	for _, st := range stages {
		if st.file != nil {
			add(st.path+".toolConfig", st.file.ToolConfig)
		}
	}
	return out
}

// Allowed values of the protocol block's enums.
var (
	responseFormats  = []string{"auto", "json_schema", "respond_tool", "prompt"}
	reasoningFields  = []string{"_reasoningForCall", "_why"}
	unpathedResults  = []string{"log", "drop"}
	requestedScopes  = []string{"ask", "auto", "deny"}
	callPolicies     = []string{"ask", "auto"}
	onNoVotesChoices = []string{"allow", "deny"}
	advisorOns       = []string{"request", "start", "finish"}
)

// protocolBlock checks the protocol block as written and converts it.
func protocolBlock(f *protocolFile) (*ProtocolBlock, error) {
	p := &ProtocolBlock{OutputText: f.OutputText, Context: f.Context}
	var err error
	if p.OutputSchema, err = schemaField(f.OutputSchema, "protocol.outputSchema"); err != nil {
		return nil, err
	}
	if p.InputSchema, err = schemaField(f.InputSchema, "protocol.inputSchema"); err != nil {
		return nil, err
	}
	if err := checkOutputText(p.OutputText, p.OutputSchema); err != nil {
		return nil, err
	}
	if err := checkContext(p.Context); err != nil {
		return nil, err
	}
	for _, x := range []struct {
		v     int
		dst   *int
		field string
	}{
		{f.Limits.MaxTurns, &p.Limits.MaxTurns, "protocol.limits.maxTurns"},
		{f.Limits.MaxParallel, &p.Limits.MaxParallel, "protocol.limits.maxParallel"},
		{f.Limits.MaxDelegateDepth, &p.Limits.MaxDelegateDepth, "protocol.limits.maxDelegateDepth"},
		{f.Approval.TimeoutMs, &p.Approval.TimeoutMs, "protocol.approval.timeoutMs"},
	} {
		if x.v < 0 {
			return nil, rejectf(x.field, "negative (%d)", x.v)
		}
		*x.dst = x.v
	}
	if p.ResponseFormat, err = enumField(f.ResponseFormat, responseFormats, "protocol.responseFormat"); err != nil {
		return nil, err
	}
	if rf := f.ReasoningField; rf != nil {
		switch {
		case *rf == "":
			p.ReasoningOff = true
		case slices.Contains(reasoningFields, *rf):
			p.ReasoningField = *rf
		default:
			return nil, rejectf("protocol.reasoningField", "unknown value %q (want _reasoningForCall, _why, or \"\" for none)", *rf)
		}
	}
	for _, x := range []struct {
		v     *int
		dst   **int
		field string
	}{{f.RepairRetries, &p.RepairRetries, "protocol.repairRetries"}, {f.ErrorWindow, &p.ErrorWindow, "protocol.errorWindow"}} {
		if x.v != nil && *x.v < 0 {
			return nil, rejectf(x.field, "negative (%d)", *x.v)
		}
		*x.dst = x.v
	}
	if p.UnpathedResults, err = enumField(f.UnpathedResults, unpathedResults, "protocol.unpathedResults"); err != nil {
		return nil, err
	}
	if p.Approval.RequestedScopes, err = enumField(f.Approval.RequestedScopes, requestedScopes,
		"protocol.approval.requestedScopes"); err != nil {
		return nil, err
	}
	if p.Approval.Calls, err = enumField(f.Approval.Calls, callPolicies, "protocol.approval.calls"); err != nil {
		return nil, err
	}
	for i, raw := range f.Approval.ConfirmTools {
		name := strings.ToLower(strings.TrimSpace(raw))
		if name == "" {
			return nil, rejectf(indexPath("protocol.approval.confirmTools", i), "blank tool name")
		}
		if !slices.Contains(p.Approval.ConfirmTools, name) {
			p.Approval.ConfirmTools = append(p.Approval.ConfirmTools, name)
		}
	}
	if g := f.Guard; g != nil {
		p.Guard = &ProtocolGuard{DisagreementSpread: g.DisagreementSpread}
		if g.MinMeanWeight != nil {
			p.Guard.MinMeanWeight = *g.MinMeanWeight
		}
		for _, x := range []struct {
			v     *float64
			field string
		}{{g.MinMeanWeight, "protocol.guard.minMeanWeight"}, {g.DisagreementSpread, "protocol.guard.disagreementSpread"}} {
			if x.v != nil && (*x.v < 0 || *x.v > 100) {
				return nil, rejectf(x.field, "%g is outside [0, 100]", *x.v)
			}
		}
		if p.Guard.OnNoVotes, err = enumField(g.OnNoVotes, onNoVotesChoices, "protocol.guard.onNoVotes"); err != nil {
			return nil, err
		}
		for i, raw := range g.Tools {
			name := strings.ToLower(strings.TrimSpace(raw))
			if name == "" {
				return nil, rejectf(indexPath("protocol.guard.tools", i), "blank tool name")
			}
			if !slices.Contains(p.Guard.Tools, name) {
				p.Guard.Tools = append(p.Guard.Tools, name)
			}
		}
	}
	return p, nil
}

// enumField checks an enum value (any case) and returns it lowercased; ""
// (not written) passes.
func enumField(v string, allowed []string, field string) (string, error) {
	low := strings.ToLower(strings.TrimSpace(v))
	if low == "" || slices.Contains(allowed, low) {
		return low, nil
	}
	return "", rejectf(field, "unknown value %q (want %s)", v, strings.Join(allowed, ", "))
}

// schemaField checks a JSON Schema field: absent and null give nil; else it
// must be a JSON object that resolves as a JSON Schema.
func schemaField(raw json.RawMessage, field string) (json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	if err := checkSchema(raw); err != nil {
		return nil, rejectf(field, "%v", err)
	}
	return raw, nil
}

// isNull reports whether raw is absent or the JSON null.
func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// checkSchema checks that raw is a JSON Schema object.
func checkSchema(raw json.RawMessage) error {
	if s := strings.TrimSpace(string(raw)); s == "" || s[0] != '{' {
		return errors.New("expected a JSON Schema object")
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("not a valid JSON Schema: %v", err)
	}
	if _, err := s.Resolve(nil); err != nil {
		return fmt.Errorf("not a valid JSON Schema: %v", err)
	}
	return nil
}

// checkOutputText checks that outputText names a string property of the
// output schema, when the schema lists properties.
func checkOutputText(name string, schema json.RawMessage) error {
	if name == "" || schema == nil {
		return nil
	}
	obj, err := decodeObject(schema)
	if err != nil {
		return nil // checkSchema accepted it; not reached
	}
	props, ok := getObject(obj, "properties")
	if !ok {
		return nil
	}
	v, ok := props.Get(name)
	if !ok {
		return rejectf("protocol.outputText", "%q is not a property of protocol.outputSchema", name)
	}
	if prop, ok := v.(*agentctx.Object); ok {
		if t, ok := prop.Get("type"); ok && !typeAllows(t, "string") {
			return rejectf("protocol.outputText", "property %q of protocol.outputSchema is not a string", name)
		}
	}
	return nil
}

// typeAllows reports whether a JSON Schema `type` value (a string or an
// array of strings) allows want.
func typeAllows(t any, want string) bool {
	switch t := t.(type) {
	case string:
		return t == want
	case []any:
		return slices.Contains(t, any(want))
	}
	return true
}

// dataLikeTypes are the message types a provider entry may have.
var dataLikeTypes = []string{"input", "state", "data"}

// checkContext checks the protocol.context entries: each is a context
// message, or a provider entry {type, kind?, provider} without a value.
func checkContext(entries []json.RawMessage) error {
	for i, raw := range entries {
		field := indexPath("protocol.context", i)
		obj, err := decodeObject(raw)
		if err != nil {
			return rejectf(field, "%v", err)
		}
		prov, isProvider := obj.Get("provider")
		if !isProvider {
			if _, err := agentctx.MessageFromObject(obj); err != nil {
				return rejectf(field, "not a valid context message: %s", ctxReason(err))
			}
			continue
		}
		name, ok := prov.(string)
		if !ok || strings.TrimSpace(name) == "" {
			return rejectf(joinPath(field, "provider"), "expected a provider name (a non-blank string)")
		}
		if t, _ := obj.Get("type"); !slices.Contains(dataLikeTypes, fmt.Sprint(t)) {
			return rejectf(joinPath(field, "type"), "a provider entry must have type input, state or data")
		}
		rest := agentctx.Clone(obj).(*agentctx.Object)
		rest.Delete("provider")
		m, err := agentctx.MessageFromObject(rest)
		if err != nil {
			return rejectf(field, "not a valid context message: %s", ctxReason(err))
		}
		if m.HasValue {
			return rejectf(field, "a provider entry carries no value (provider %q supplies it)", name)
		}
	}
	return nil
}

// advisorKeys are the fields of an advisor declaration (AGENT_PROTOCOL § 1.3).
var advisorKeys = []string{"type", "kind", "id", "on", "role", "persona", "schema", "answer", "scopes", "isInstanced", "weight"}

// reservedAnswerProps are the answer schema properties that clash with the
// entry variant (AGENT_PROTOCOL § 2.4).
var reservedAnswerProps = []string{"id", "calls", "_instance"}

// advisors checks the advisor declarations and keeps them as written.
// Entries with the same id are patches of one advisor: their `on` may go
// from unset to a value once; a different later value rejects the agent.
func (b *agentBuilder) advisors() error {
	on := map[string]string{} // id → its first `on` value
	for i, raw := range b.f.Advisors {
		field := indexPath("advisors", i)
		obj, err := decodeObject(raw)
		if err != nil {
			return rejectf(field, "%v", err)
		}
		id, err := b.advisor(obj, field)
		if err != nil {
			return err
		}
		v, _ := obj.Get("on")
		if v == nil {
			continue
		}
		s := v.(string) // advisor checked the type
		switch prev, ok := on[id]; {
		case !ok:
			on[id] = s
		case prev != s:
			return rejectf(joinPath(field, "on"), "advisor %q: on is %q, cannot become %q (on may go from unset to a value once)",
				id, prev, s)
		}
	}
	b.a.Advisors = b.f.Advisors
	return nil
}

// advisor checks one advisor declaration and returns its id.
func (b *agentBuilder) advisor(obj *agentctx.Object, field string) (string, error) {
	for _, k := range obj.Keys() {
		if !slices.Contains(advisorKeys, k) {
			b.warn(joinPath(field, k), "unknown field; ignored")
		}
	}
	for _, k := range []string{"type", "kind"} {
		if v, ok := obj.Get(k); ok && v != "advisor" {
			return "", rejectf(joinPath(field, k), "an advisor declaration has %s \"advisor\" or none", k)
		}
	}
	id, _ := obj.Get("id")
	if s, ok := id.(string); !ok || strings.TrimSpace(s) == "" {
		return "", rejectf(joinPath(field, "id"), "missing: an advisor needs a string id")
	}
	for _, pair := range [][2]string{{"role", "persona"}, {"schema", "answer"}} {
		_, hasP := obj.Get(pair[0])
		if _, hasA := obj.Get(pair[1]); hasP && hasA {
			return "", rejectf(joinPath(field, pair[1]), "both %s and its alias %s are written; use one", pair[0], pair[1])
		}
	}
	if v, ok := obj.Get("on"); ok && v != nil {
		if s, isStr := v.(string); !isStr || !slices.Contains(advisorOns, s) {
			return "", rejectf(joinPath(field, "on"), "unknown value %v (want request, start, finish or null)", jsonText(v))
		}
	}
	for _, k := range []string{"schema", "answer"} {
		if err := checkAnswerSchema(obj, k, joinPath(field, k)); err != nil {
			return "", err
		}
	}
	if v, ok := obj.Get("scopes"); ok && v != nil {
		list, isList := v.([]any)
		if !isList {
			return "", rejectf(joinPath(field, "scopes"), "expected an array of scopes")
		}
		for j, e := range list {
			if err := checkScope(e); err != nil {
				return "", rejectf(indexPath(joinPath(field, "scopes"), j), "%v", err)
			}
		}
	}
	if v, ok := obj.Get("isInstanced"); ok && v != nil {
		if _, isBool := v.(bool); !isBool {
			return "", rejectf(joinPath(field, "isInstanced"), "expected boolean, found %s", jsonText(v))
		}
	}
	if v, ok := obj.Get("weight"); ok && v != nil {
		n, _ := v.(json.Number)
		if w, err := n.Float64(); err != nil || w < 0 {
			return "", rejectf(joinPath(field, "weight"), "expected a number >= 0, found %s", jsonText(v))
		}
	}
	if _, err := advisorMessage(obj); err != nil {
		return "", rejectf(field, "not a valid advisor declaration: %s", ctxReason(err))
	}
	return id.(string), nil
}

// checkAnswerSchema checks an advisor's answer schema: a JSON Schema object
// whose properties do not clash with the entry variant.
func checkAnswerSchema(obj *agentctx.Object, key, field string) error {
	v, ok := obj.Get(key)
	if !ok || v == nil {
		return nil
	}
	schema, isObj := v.(*agentctx.Object)
	if !isObj {
		return rejectf(field, "expected a JSON Schema object")
	}
	raw, err := agentctx.Encode(schema)
	if err == nil {
		err = checkSchema(raw)
	}
	if err != nil {
		return rejectf(field, "%v", err)
	}
	if props, ok := getObject(schema, "properties"); ok {
		for _, k := range reservedAnswerProps {
			if _, clash := props.Get(k); clash {
				return rejectf(joinPath(field, "properties."+k), "%q is reserved in advisor answers (id, calls, _instance)", k)
			}
		}
	}
	return nil
}

// checkScope checks one scope entry with the protocol's own rule
// (protocol.CheckScope): a kind or a path (`†kind.a.b`), never an internal
// kind nor system (AGENT_PROTOCOL § 4.2).
func checkScope(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("expected a scope string, found %s", jsonText(v))
	}
	return protocol.CheckScope(s)
}

// advisorMessage normalises an advisor declaration as a context message.
func advisorMessage(obj *agentctx.Object) (agentctx.Message, error) {
	o := agentctx.Clone(obj).(*agentctx.Object)
	if _, ok := o.Get("type"); !ok {
		o.Set("type", "advisor")
	}
	return agentctx.MessageFromObject(o)
}

// decodeObject decodes raw JSON that must be an object.
func decodeObject(raw json.RawMessage) (*agentctx.Object, error) {
	v, err := agentctx.Decode(raw)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*agentctx.Object)
	if !ok {
		return nil, fmt.Errorf("expected object, found %s", jsonKind(v))
	}
	return obj, nil
}

// getObject returns the object under key.
func getObject(obj *agentctx.Object, key string) (*agentctx.Object, bool) {
	v, _ := obj.Get(key)
	o, ok := v.(*agentctx.Object)
	return o, ok
}

// jsonKind names the JSON type of an ordered value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// jsonText returns v as compact JSON, for messages.
func jsonText(v any) string {
	b, err := agentctx.Encode(v)
	if err != nil {
		return jsonKind(v)
	}
	return string(b)
}

// ctxReason returns the message of an agentctx error without its prefix.
func ctxReason(err error) string {
	var e *agentctx.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return err.Error()
}
