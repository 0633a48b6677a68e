package protocol

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// WeightsDescription is the description of an opinion's `calls` string.
const WeightsDescription = "JSON object: tool name -> confidence 0..100"

// ConsultAdvisorDescription is the description of the built-in
// ConsultAdvisor variant.
const ConsultAdvisorDescription = "Ask an on-demand advisor one question; its opinion comes back as the result."

// WarnCallsOnFinalTurn: the model sent calls on the final turn, which accepts
// only output (LM4); they are ignored.
const WarnCallsOnFinalTurn Code = "calls_on_final_turn"

// Meta-property names (§1.4).
const (
	metaTool         = "_tool"
	metaWhy          = "_why"
	metaActivity     = "_activity"
	metaDelegate     = "_delegate"
	metaScopes       = "_scopes"
	metaInstance     = "_instance"
	metaOutputPath   = "_outputPath"
	metaOutputMethod = "_outputMethod"
	metaOutput       = "_output"
)

// declaredMeta are the meta-properties a tool may declare.
var declaredMeta = map[string]bool{
	metaActivity: true, metaDelegate: true, metaScopes: true,
	metaOutputPath: true, metaOutputMethod: true, metaOutput: true,
}

// Tool file kinds (§5.2).
var fileKinds = map[string]bool{"": true, "backend": true, "frontend": true, "action": true, "latent": true, "delegate": true}

// declared is a tool declaration parsed without a registry.
type declared struct {
	tool          *Tool
	activityConst string // `_activity` const, "" when absent
}

// parseDecl parses a tool declaration: parameters, meta-properties and the
// file kind rules of §5.2. The execution kind is settled by resolveKind.
func parseDecl(d ToolDecl) (*declared, error) {
	if d.Name == "" {
		return nil, errors.New("tool without a name")
	}
	fail := func(format string, args ...any) (*declared, error) {
		return nil, fmt.Errorf("tool %q: %s", d.Name, fmt.Sprintf(format, args...))
	}
	if d.Name == ConsultAdvisor {
		return fail("the name %s is reserved for the built-in tool", ConsultAdvisor)
	}
	if !fileKinds[d.FileKind] {
		return fail("unknown tool file kind %q", d.FileKind)
	}
	var params *agentctx.Object
	if d.Parameters != nil {
		s, err := orderedSchema(d.Parameters, "parameters")
		if err != nil {
			return fail("%v", err)
		}
		o, ok := s.(*agentctx.Object)
		if !ok {
			return fail("parameters must be a JSON Schema object")
		}
		params = o
	} else {
		params = agentctx.NewObject("type", "object", "properties", &agentctx.Object{})
	}
	props := &agentctx.Object{}
	if p, ok := params.Get("properties"); ok {
		if props, ok = p.(*agentctx.Object); !ok {
			return fail("parameters.properties must be an object")
		}
	}
	t := &Tool{Name: d.Name, Description: d.Description, FileKind: d.FileKind, Declared: params, Params: &agentctx.Object{}}
	dc := &declared{tool: t}
	for _, r := range getStrings(params, "required") {
		if !strings.HasPrefix(r, "_") {
			t.Required = append(t.Required, r)
		}
	}
	for _, k := range props.Keys() {
		s, _ := props.Get(k)
		if !strings.HasPrefix(k, "_") {
			t.Params.Set(k, s)
			continue
		}
		if !declaredMeta[k] {
			return fail("unknown meta-property %q", k)
		}
		if err := dc.meta(k, s); err != nil {
			return fail("%s: %v", k, err)
		}
	}
	switch d.FileKind {
	case "latent":
		if !t.HasOutput {
			return fail(".latent tools must declare _output")
		}
		if t.Delegate != "" || dc.activityConst != "" {
			return fail(".latent tools cannot declare _delegate or _activity")
		}
	case "delegate":
		if t.Delegate == "" {
			return fail(".delegate tools must declare _delegate")
		}
	case "backend", "frontend", "action":
		if t.Delegate != "" {
			return fail(".%s tools cannot declare _delegate", d.FileKind)
		}
	}
	if t.Delegate != "" && dc.activityConst != "" {
		return fail("_delegate and _activity exclude each other")
	}
	return dc, nil
}

// meta reads one declared meta-property.
func (dc *declared) meta(key string, s any) error {
	t := dc.tool
	o, _ := s.(*agentctx.Object)
	c, hasConst := constOf(o)
	switch key {
	case metaActivity, metaDelegate:
		name, ok := c.(string)
		if !hasConst || !ok || name == "" {
			return errors.New(`must be {"const":"<name>"}`)
		}
		if key == metaActivity {
			dc.activityConst = name
		} else {
			t.Delegate = name
		}
	case metaScopes:
		t.HasScopes = true
		if hasConst {
			list, ok := stringList(c)
			if !ok {
				return errors.New("the const must be an array of scopes")
			}
			t.Provisioned = list
		} else {
			items, _ := getObject(o, "items")
			list, ok := stringList(get(items, "enum"))
			if !ok {
				return errors.New(`must be {"const":[…]} or {"type":"array","items":{"enum":[…]}}`)
			}
			if len(list) > 0 {
				t.Requested = list
			}
			if p, ok := o.Get("provisioned"); ok { // o is not nil: items was found
				if t.Provisioned, ok = stringList(p); !ok {
					return errors.New("provisioned must be an array of scopes")
				}
			}
		}
		for _, sc := range append(append([]string(nil), t.Provisioned...), t.Requested...) {
			if err := CheckScope(sc); err != nil {
				return err
			}
		}
	case metaOutputPath:
		if hasConst {
			p, ok := c.(string)
			if !ok {
				return errors.New("the const must be a path string")
			}
			if _, err := agentctx.ParseOutputPath(p); err != nil {
				return err
			}
			t.OutputPath = p
		} else {
			if o == nil {
				return errors.New(`must be {"const":"†…"} or a string schema`)
			}
			t.PathChosen, t.PathSchema = true, o
		}
	case metaOutputMethod:
		if hasConst {
			m, ok := c.(string)
			if !ok {
				return errors.New("the const must be a method name")
			}
			method, err := agentctx.ParseMethod(m)
			if err != nil {
				return err
			}
			t.OutputMethod = method
		} else {
			list, ok := stringList(get(o, "enum"))
			if !ok || len(list) == 0 {
				return errors.New(`must be {"const":"<method>"} or {"enum":[…]}`)
			}
			for _, m := range list {
				method, err := agentctx.ParseMethod(m)
				if err != nil {
					return err
				}
				t.MethodChoices = append(t.MethodChoices, method)
			}
		}
	case metaOutput:
		t.Output, t.HasOutput = s, true
	}
	return nil
}

func constOf(o *agentctx.Object) (any, bool) {
	if o == nil {
		return nil, false
	}
	return o.Get("const")
}

func stringList(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// resolveKind settles the execution kind (§1.4): `_delegate` → delegated;
// `_activity` const → explicit (the activity must exist); a `.latent` file →
// latent; a `.backend`/`.frontend`/`.action` file or an activity registered
// under the tool name → explicit; otherwise latent.
func (dc *declared) resolveKind(reg Registry) error {
	t := dc.tool
	switch {
	case t.Delegate != "":
		t.Kind = KindDelegated
		if t.Delegate != Anonymous {
			if reg == nil {
				return fmt.Errorf("tool %q: delegate agent %q cannot be resolved without a registry", t.Name, t.Delegate)
			}
			if _, ok := reg.Agent(t.Delegate); !ok {
				return fmt.Errorf("tool %q: unknown delegate agent %q", t.Name, t.Delegate)
			}
		}
	case dc.activityConst != "":
		t.Kind, t.Activity = KindExplicit, dc.activityConst
		if reg == nil {
			return fmt.Errorf("tool %q: activity %q cannot be resolved without a registry", t.Name, t.Activity)
		}
		if _, ok := reg.Activity(t.Activity); !ok {
			return fmt.Errorf("tool %q: unknown activity %q", t.Name, t.Activity)
		}
	case t.FileKind == "latent":
		t.Kind = KindLatent
	case t.FileKind == "backend" || t.FileKind == "frontend" || t.FileKind == "action":
		t.Kind, t.Activity = KindExplicit, t.Name
	default:
		if reg != nil {
			if _, ok := reg.Activity(t.Name); ok {
				t.Kind, t.Activity = KindExplicit, t.Name
				return nil
			}
		}
		t.Kind = KindLatent
	}
	return nil
}

// buildVariant builds the call variant in validation form (§2.3, §1.5 "Call
// (wire)"): _tool, the reasoning field, _instance, _scopes (requested part),
// parameters in declared order, _outputPath, _outputMethod, _output.
func buildVariant(t *Tool, reasoning string, instances []string) *agentctx.Object {
	declaredProps, _ := getObject(t.Declared, "properties")
	declaredReq := stringSet(t.Declared, "required")
	props := &agentctx.Object{}
	req := map[string]bool{metaTool: true}
	props.Set(metaTool, agentctx.NewObject("type", "string", "const", t.Name))
	if reasoning != "" {
		props.Set(reasoning, agentctx.NewObject("type", "string"))
		req[reasoning] = true
	}
	if len(instances) > 0 {
		props.Set(metaInstance, agentctx.NewObject("type", "string", "enum", stringsToAny(instances)))
	}
	declaredMetaProp := func(key string) {
		s, _ := declaredProps.Get(key)
		props.Set(key, agentctx.Clone(s))
		req[key] = declaredReq[key]
	}
	if len(t.Requested) > 0 {
		declaredMetaProp(metaScopes)
	}
	for _, k := range t.Params.Keys() {
		s, _ := t.Params.Get(k)
		props.Set(k, agentctx.Clone(s))
	}
	for _, r := range t.Required {
		req[r] = true
	}
	if t.PathChosen {
		declaredMetaProp(metaOutputPath)
	}
	if len(t.MethodChoices) > 0 {
		declaredMetaProp(metaOutputMethod)
	}
	if t.Kind == KindLatent && t.HasOutput {
		props.Set(metaOutput, agentctx.Clone(t.Output))
		req[metaOutput] = true
	}
	return objectSchema(t.Description, props, req)
}

// objectSchema builds {type:object, description?, properties, required} with
// required listed in property order.
func objectSchema(description string, props *agentctx.Object, req map[string]bool) *agentctx.Object {
	names := []any{}
	for _, k := range props.Keys() {
		if req[k] {
			names = append(names, k)
		}
	}
	o := agentctx.NewObject("type", "object")
	if description != "" {
		o.Set("description", description)
	}
	o.Set("properties", props)
	o.Set("required", names)
	return o
}

// consultTool is the built-in ConsultAdvisor tool for the on-demand advisors.
func consultTool(ids []string) *Tool {
	params := agentctx.NewObject(
		"id", agentctx.NewObject("type", "string", "enum", stringsToAny(ids)),
		"question", agentctx.NewObject("type", "string"),
	)
	return &Tool{
		Name: ConsultAdvisor, Description: ConsultAdvisorDescription, Kind: KindExplicit, Activity: ConsultAdvisor,
		Params: params, Required: []string{"id", "question"},
		Declared: agentctx.NewObject("type", "object", "properties", agentctx.Clone(params), "required", []any{"id", "question"}),
	}
}

// Advisor `on` values (§2.4).
const (
	OnRequest = "request"
	OnStart   = "start"
	OnFinish  = "finish"
)

// reservedAnswerProps may not appear in an answer schema (§2.4).
var reservedAnswerProps = []string{"id", "calls", metaInstance}

// checkAdvisor checks a folded advisor's `on` and answer schema and returns
// the answer schema in ordered form.
func checkAdvisor(a agentctx.Advisor) (any, error) {
	switch a.On {
	case "", OnRequest, OnStart, OnFinish:
	default:
		return nil, fmt.Errorf("advisor %q: unknown on %q (request, start or finish)", a.ID, a.On)
	}
	s, err := orderedSchema(a.Schema, fmt.Sprintf("advisor %q schema", a.ID))
	if err != nil {
		return nil, err
	}
	o, _ := s.(*agentctx.Object)
	if props, ok := getObject(o, "properties"); ok {
		for _, r := range reservedAnswerProps {
			if _, ok := props.Get(r); ok {
				return nil, fmt.Errorf("advisor %q: answer property %q is reserved", a.ID, r)
			}
		}
	}
	return s, nil
}

// entryVariant builds an advisor's entry variant in validation form (§2.4):
// id (enum of one), _instance (instanced advisors, when instances exist),
// the answer properties (a non-object answer wrapped as {value}), calls.
func entryVariant(id string, answer any, instanced bool, instances []string) *agentctx.Object {
	props := agentctx.NewObject("id", agentctx.NewObject("type", "string", "enum", []any{id}))
	req := map[string]bool{"id": true, "calls": true}
	if instanced && len(instances) > 0 {
		props.Set(metaInstance, agentctx.NewObject("type", "string", "enum", stringsToAny(instances)))
		req[metaInstance] = true
	}
	o, isObj := answer.(*agentctx.Object)
	switch {
	case answer == nil:
	case isObj && isObjectSchema(o):
		ap, _ := getObject(o, "properties")
		if ap != nil {
			for _, k := range ap.Keys() {
				s, _ := ap.Get(k)
				props.Set(k, agentctx.Clone(s))
			}
		}
		for _, r := range getStrings(o, "required") {
			req[r] = true
		}
	default:
		props.Set("value", agentctx.Clone(answer))
		req["value"] = true
	}
	props.Set("calls", agentctx.NewObject("type", "string", "description", WeightsDescription))
	return objectSchema("", props, req)
}

// activation applies the table of §2.4.
func activation(on string, t TurnInfo) (Activation, bool) {
	switch on {
	case OnRequest:
		return Required, false
	case OnStart:
		if t.FirstOfChat && !t.Final {
			return Required, false
		}
		return Offered, false
	case OnFinish:
		if t.Final {
			return Required, true
		}
		return Offered, true
	}
	return Absent, false
}

// ResolveFormat picks the response format of §2.6 for an agent.
func ResolveFormat(a *Agent) string {
	switch a.ResponseFormat {
	case FormatJSONSchema, FormatRespondTool, FormatPrompt:
		return a.ResponseFormat
	}
	switch {
	case a.Model.StructuredOutput == "json_schema":
		return FormatJSONSchema
	case a.Model.StructuredOutput == "tool" || a.Model.SupportsTools:
		return FormatRespondTool
	}
	return FormatPrompt
}

// reasoningName is the emitted name of the per-call reasoning field ("" when
// off).
func (a *Agent) reasoningName() string {
	if a.ReasoningOff {
		return ""
	}
	if a.ReasoningField == "" {
		return DefaultReasoningField
	}
	return a.ReasoningField
}

// Compose composes one turn (§2.1 steps 1–7): the run context c (agent
// context, chat, input and writes) plus the agent's own tools and advisors.
// Errors are definition errors (a tool or advisor that cannot be composed,
// an unknown activity, delegate or tool ref); an in-run advisor `on`
// conflict is only a warning.
func Compose(a *Agent, c agentctx.Context, t TurnInfo, reg Registry) (*Composition, error) {
	if a == nil {
		return nil, errors.New("protocol: Compose needs an agent")
	}
	comp := &Composition{Agent: a, Turn: t, Instances: c.Instances(), Format: ResolveFormat(a)}
	reasoning := a.reasoningName()

	decls, err := foldTools(a, c, reg)
	if err != nil {
		return nil, err
	}
	cache := a.cache
	templates := make([]*declared, 0, len(decls)+1)
	for _, d := range decls {
		tmpl, err := cache.decl(d)
		if err != nil {
			return nil, err
		}
		t := *tmpl.tool
		dc := &declared{tool: &t, activityConst: tmpl.activityConst}
		if err := dc.resolveKind(reg); err != nil {
			return nil, err
		}
		comp.Tools = append(comp.Tools, dc.tool)
		templates = append(templates, tmpl)
	}

	if err := composeAdvisors(comp, a, c); err != nil {
		return nil, err
	}
	var onDemand []string
	for _, ad := range comp.Advisors {
		if ad.On == "" {
			onDemand = append(onDemand, ad.ID)
		}
	}
	if len(onDemand) > 0 {
		comp.Tools = append(comp.Tools, consultTool(onDemand))
		templates = append(templates, nil)
	}
	dropped := a.Model.DroppedKeywords
	instKey := strings.Join(comp.Instances, "\x00")
	for i, tool := range comp.Tools {
		tool.Variant, tool.Wire = cache.variant(templates[i], tool, reasoning, comp.Instances, instKey, dropped)
	}
	if err := cache.solution(a, comp, dropped); err != nil {
		return nil, err
	}
	return comp, nil
}

// foldTools folds the agent's tools and the context's tool messages by name:
// the last definition wins, at the position of the first (§1.3, T3).
func foldTools(a *Agent, c agentctx.Context, reg Registry) ([]ToolDecl, error) {
	var out []ToolDecl
	pos := map[string]int{}
	add := func(d ToolDecl) {
		if i, ok := pos[d.Name]; ok {
			out[i] = d
			return
		}
		pos[d.Name] = len(out)
		out = append(out, d)
	}
	for _, d := range a.Tools {
		add(d)
	}
	for _, def := range c.Tools() {
		if def.Ref == "" && def.Schema != nil {
			d, err := a.cache.contextTool(def)
			if err != nil {
				return nil, err
			}
			add(d)
			continue
		}
		if def.Ref != "" {
			if reg == nil {
				return nil, fmt.Errorf("tool ref %q cannot be resolved without a registry", def.Ref)
			}
			d, ok := reg.Tool(def.Ref)
			if !ok {
				return nil, fmt.Errorf("tool ref %q is not a registered tool", def.Ref)
			}
			add(d)
			continue
		}
		add(ToolDecl{Name: def.Name}) // a tool message without a schema: no parameters
	}
	return out, nil
}

// composeAdvisors folds the agent's advisors then the context's advisor
// messages (§2.1 step 2), records in-run `on` conflicts as warnings and sets
// each advisor's activation and entry variant (§2.4).
func composeAdvisors(comp *Composition, a *Agent, c agentctx.Context) error {
	msgs := append(agentctx.Context(nil), a.Advisors...)
	for _, m := range c {
		if m.Type == agentctx.TypeAdvisor && m.Advisor != nil {
			msgs = append(msgs, m)
		}
	}
	folded, errs := msgs.Advisors()
	for _, err := range errs {
		msg := err.Error()
		var e *agentctx.Error
		if errors.As(err, &e) {
			msg = e.Message
		}
		comp.Warnings = append(comp.Warnings, Warning{Code: agentctx.CodeAdvisorOnConflict, Message: msg})
	}
	dropped := a.Model.DroppedKeywords
	for _, ad := range folded {
		act, onOutput := activation(ad.On, comp.Turn)
		e, err := a.cache.advisor(ad, comp.Instances, dropped)
		if err != nil {
			return err
		}
		ad.Schema = e.answer
		comp.Advisors = append(comp.Advisors, &ActiveAdvisor{
			Advisor: ad, Activation: act, RequiredOnOutput: onOutput,
			Variant: e.variant, Wire: e.wire,
		})
	}
	return nil
}

// solutionSchema builds the validation solution schema (§2.2): advisors →
// calls → output; `advisors` only when an advisor is required or offered;
// on the final turn no `calls` and a non-nullable output (LM4).
func solutionSchema(a *Agent, comp *Composition) (*agentctx.Object, error) {
	props := &agentctx.Object{}
	var entries []any
	for _, ad := range comp.Advisors {
		if ad.Activation != Absent {
			entries = append(entries, ad.Variant)
		}
	}
	if len(entries) > 0 {
		props.Set("advisors", agentctx.NewObject("type", "array", "items", agentctx.NewObject("anyOf", entries)))
	}
	if !comp.Turn.Final {
		variants := make([]any, 0, len(comp.Tools))
		for _, t := range comp.Tools {
			variants = append(variants, t.Variant)
		}
		props.Set("calls", agentctx.NewObject("type", "array", "items", agentctx.NewObject("anyOf", variants)))
	}
	out, err := outputSchema(a)
	if err != nil {
		return nil, err
	}
	if comp.Turn.Final {
		props.Set("output", out)
	} else {
		props.Set("output", agentctx.NewObject("anyOf", []any{out, agentctx.NewObject("type", "null")}))
	}
	req := map[string]bool{}
	for _, k := range props.Keys() {
		req[k] = true
	}
	return objectSchema("", props, req), nil
}

// outputSchema is the agent's output schema in ordered form; nil = any
// object.
func outputSchema(a *Agent) (any, error) {
	if a.OutputSchema == nil {
		return agentctx.NewObject("type", "object"), nil
	}
	s, err := orderedSchema(a.OutputSchema, "output schema")
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", a.Key, err)
	}
	return s, nil
}
