package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// Parse parses and validates one reply's JSON text against a composition
// (§3 steps 1–7). It never fails: problems are in the result. Envelope
// problems (including invalid advisor entries) leave Solution nil; a missing
// required advisor entry or an empty solution keeps the parsed Solution.
func Parse(comp *Composition, raw []byte) *ParseResult {
	res := &ParseResult{}
	if comp == nil || comp.Agent == nil {
		return repair(res, CodeSolutionInvalid, "(root): no composition to parse the reply against")
	}
	text := bytes.TrimSpace(raw)
	if len(text) == 0 {
		return repair(res, CodeSolutionUnparsable, "(root): the reply holds no JSON")
	}
	v, err := agentctx.Decode(text)
	if err != nil {
		return repair(res, CodeSolutionUnparsable, "(root): the reply is not one JSON value: "+err.Error())
	}
	root, ok := v.(*agentctx.Object)
	if !ok {
		return repair(res, CodeSolutionInvalid, "(root): the solution must be a JSON object, got "+jsonType(v))
	}
	p := &parser{comp: comp, res: res, tools: toolNames(comp)}
	p.envelope(root)
	if len(p.problems) > 0 {
		res.Repair = problemStrings(p.problems)
		res.RepairCode = CodeSolutionInvalid
		return res
	}
	sol := &Solution{Output: p.output, HasOutput: p.hasOutput}
	norm := &agentctx.Object{}
	if p.entries != nil {
		sol.Opinions = p.opinions()
		norm.Set("advisors", p.normEntries())
	}
	normCalls := make([]any, 0, len(p.calls))
	for i, c := range p.calls {
		call, obj, cerr := p.call(i, c)
		normCalls = append(normCalls, obj)
		if cerr != nil {
			res.CallErrors = append(res.CallErrors, *cerr)
			continue
		}
		sol.Calls = append(sol.Calls, call)
	}
	if !comp.Turn.Final {
		norm.Set("calls", normCalls)
	}
	norm.Set("output", p.output)
	sol.Normalised = norm
	res.Solution = sol

	missing := p.missingAdvisors()
	switch {
	case len(p.calls) == 0 && !p.hasOutput:
		res.Repair = append([]string{"/calls: no calls and a null output: call at least one tool or give the output"}, missing...)
		res.RepairCode = CodeEmptySolution
	case len(missing) > 0:
		res.Repair = missing
		res.RepairCode = CodeAdvisorMissing
	}
	return res
}

func repair(res *ParseResult, code Code, problem string) *ParseResult {
	res.Repair = []string{problem}
	res.RepairCode = code
	return res
}

func problemStrings(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func toolNames(comp *Composition) []string {
	out := make([]string, len(comp.Tools))
	for i, t := range comp.Tools {
		out[i] = t.Name
	}
	return out
}

// parser holds one reply being parsed.
type parser struct {
	comp     *Composition
	res      *ParseResult
	tools    []string
	problems []Problem

	entries   []entry // advisor entries kept after the id and duplicate checks
	calls     []any
	output    any
	hasOutput bool
}

// entry is one advisor entry of the reply with its advisor.
type entry struct {
	adv      *ActiveAdvisor
	obj      *agentctx.Object // null-stripped entry
	instance string
}

func (p *parser) problem(ptr, format string, args ...any) {
	p.problems = append(p.problems, Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// envelope validates advisors, calls and output (§3 steps 2–3 and the
// advisor id and duplicate rules of step 6).
func (p *parser) envelope(root *agentctx.Object) {
	final := p.comp.Turn.Final
	if adv, ok := root.Get("advisors"); ok && adv != nil {
		p.advisors(adv)
	}
	calls, hasCalls := root.Get("calls")
	switch {
	case final:
		if arr, ok := calls.([]any); ok && len(arr) > 0 {
			p.res.Warnings = append(p.res.Warnings, Warning{Code: WarnCallsOnFinalTurn,
				Message: fmt.Sprintf("%d call(s) ignored: the final turn accepts only output", len(arr))})
		}
	case !hasCalls:
		p.problem("/calls", "is required (an array of calls, possibly empty)")
	default:
		arr, ok := calls.([]any)
		if !ok {
			p.problem("/calls", "must be an array, got %s", jsonType(calls))
		}
		p.calls = arr
	}
	out, hasOut := root.Get("output")
	switch {
	case !hasOut:
		p.problem("/output", "is required (null to continue)")
	case out == nil && final:
		p.problem("/output", "must not be null: this is the final turn, give the output")
	case out != nil:
		schema, _ := outputSchema(p.comp.Agent)
		out = stripNulls(out, schema)
		p.problems = append(p.problems, ValidateValue(out, schema, "/output")...)
		p.output, p.hasOutput = out, true
	}
}

// advisors checks the advisor entries: unknown ids are dropped with a
// warning, known entries are validated against their variant (the `calls`
// weights string is left to ParseWeights), a duplicate (id, instance) keeps
// the last entry.
func (p *parser) advisors(v any) {
	arr, ok := v.([]any)
	if !ok {
		p.problem("/advisors", "must be an array, got %s", jsonType(v))
		return
	}
	pos := map[[2]string]int{}
	for i, e := range arr {
		ptr := pointerJoin("/advisors", strconv.Itoa(i))
		obj, ok := e.(*agentctx.Object)
		if !ok {
			p.problem(ptr, "must be an object, got %s", jsonType(e))
			continue
		}
		id, _ := get(obj, "id").(string)
		adv := p.comp.Advisor(id)
		if adv == nil || adv.Activation == Absent {
			p.res.Warnings = append(p.res.Warnings, Warning{Code: WarnAdvisorUnknown,
				Message: fmt.Sprintf("advisor entry %d: %s is not an advisor of this turn; entry dropped", i, compact(get(obj, "id")))})
			continue
		}
		obj = stripNulls(obj, adv.Variant).(*agentctx.Object)
		check := agentctx.Clone(obj).(*agentctx.Object)
		check.Delete("calls")
		schema := withoutProperty(adv.Variant, "calls")
		if probs := ValidateValue(check, schema, ptr); len(probs) > 0 {
			p.problems = append(p.problems, probs...)
			continue
		}
		inst, _ := get(obj, metaInstance).(string)
		if !adv.IsInstanced || len(p.comp.Instances) == 0 {
			inst = ""
		}
		key := [2]string{id, inst}
		if j, dup := pos[key]; dup {
			p.res.Warnings = append(p.res.Warnings, Warning{Code: WarnAdvisorDuplicate,
				Message: fmt.Sprintf("advisor %q%s answered twice; the last entry is kept", id, instanceSuffix(inst))})
			p.entries = append(p.entries[:j], p.entries[j+1:]...)
			for k, idx := range pos {
				if idx > j {
					pos[k] = idx - 1
				}
			}
		}
		pos[key] = len(p.entries)
		p.entries = append(p.entries, entry{adv: adv, obj: obj, instance: inst})
	}
	if p.entries == nil {
		p.entries = []entry{}
	}
}

func instanceSuffix(inst string) string {
	if inst == "" {
		return ""
	}
	return fmt.Sprintf(" for instance %q", inst)
}

// withoutProperty returns a copy of an object schema without one property.
func withoutProperty(s *agentctx.Object, key string) *agentctx.Object {
	c := agentctx.Clone(s).(*agentctx.Object)
	if props, ok := getObject(c, "properties"); ok {
		props.Delete(key)
	}
	if req := getStrings(c, "required"); req != nil {
		kept := []any{}
		for _, r := range req {
			if r != key {
				kept = append(kept, r)
			}
		}
		c.Set("required", kept)
	}
	return c
}

// opinions turns the kept entries into opinions, parsing the weights
// tolerantly (§3.1).
func (p *parser) opinions() []Opinion {
	out := make([]Opinion, 0, len(p.entries))
	for _, e := range p.entries {
		op := Opinion{ID: e.adv.ID, Instance: e.instance, Answer: &agentctx.Object{}}
		for _, k := range e.obj.Keys() {
			if k == "id" || k == metaInstance || k == "calls" {
				continue
			}
			v, _ := e.obj.Get(k)
			op.Answer.Set(k, v)
		}
		op.Answer = reorder(op.Answer, e.adv.Variant)
		calls, _ := e.obj.Get("calls")
		op.Weights, op.RawCalls, op.Warnings = ParseWeights(calls, p.tools)
		out = append(out, op)
	}
	return out
}

// reorder returns obj with the properties declared by an object schema
// first, in declared order, then the others in their order.
func reorder(obj *agentctx.Object, schema *agentctx.Object) *agentctx.Object {
	props, _ := getObject(schema, "properties")
	if props == nil {
		return obj
	}
	out := &agentctx.Object{}
	for _, k := range props.Keys() {
		if v, ok := obj.Get(k); ok {
			out.Set(k, v)
		}
	}
	for _, k := range obj.Keys() {
		if _, ok := out.Get(k); !ok {
			v, _ := obj.Get(k)
			out.Set(k, v)
		}
	}
	return out
}

func (p *parser) normEntries() []any {
	out := make([]any, len(p.entries))
	for i, e := range p.entries {
		out[i] = e.obj
	}
	return out
}

// missingAdvisors lists the required advisor entries that are absent (§2.4,
// A6): one per live instance for instanced advisors; `finish` advisors only
// when the output is not null.
func (p *parser) missingAdvisors() []string {
	var out []string
	have := map[[2]string]bool{}
	for _, e := range p.entries {
		have[[2]string{e.adv.ID, e.instance}] = true
	}
	for _, adv := range p.comp.Advisors {
		if adv.Activation != Required && !(adv.RequiredOnOutput && p.hasOutput) {
			continue
		}
		if !adv.IsInstanced || len(p.comp.Instances) == 0 {
			if !have[[2]string{adv.ID, ""}] {
				out = append(out, fmt.Sprintf("/advisors: the entry of advisor %q is required", adv.ID))
			}
			continue
		}
		for _, inst := range p.comp.Instances {
			if !have[[2]string{adv.ID, inst}] {
				out = append(out, fmt.Sprintf("/advisors: advisor %q needs an entry for instance %q", adv.ID, inst))
			}
		}
	}
	return out
}

// callFail builds a call error.
func callFail(index int, tool, instance string, code Code, details any, format string, args ...any) *CallError {
	name := tool
	if name == "" {
		name = "call"
	}
	where := fmt.Sprintf("%s (call %d", name, index)
	if instance != "" {
		where += ", instance " + instance
	}
	return &CallError{Index: index, Tool: tool, Instance: instance, Code: code, Details: details,
		Message: where + "): " + fmt.Sprintf(format, args...) + "."}
}

// call parses one call on its own (§3 steps 2, 4, 5): it returns the call or
// its error, and the normalised call object in both cases.
func (p *parser) call(index int, v any) (*Call, any, *CallError) {
	ptr := pointerJoin("/calls", strconv.Itoa(index))
	obj, ok := v.(*agentctx.Object)
	if !ok {
		return nil, v, callFail(index, "", "", CodeCallInvalid, nil, "a call must be an object, got %s", jsonType(v))
	}
	name, _ := get(obj, metaTool).(string)
	if name == "" {
		return nil, obj, callFail(index, "", "", CodeUnknownTool, nil, "the call names no tool in %s", metaTool)
	}
	t := p.comp.Tool(name)
	if t == nil {
		return nil, obj, callFail(index, name, "", CodeUnknownTool, nil, "there is no tool named %q", name)
	}
	obj = stripNulls(obj, t.Variant).(*agentctx.Object)
	for _, k := range append([]string(nil), obj.Keys()...) {
		if v, _ := obj.Get(k); v == nil && strings.HasPrefix(k, "_") {
			obj.Delete(k) // a null meta-property is an absent one
		}
	}
	obj, reasoning, cerr := normaliseReasoning(obj, index, name)
	if cerr != nil {
		return nil, obj, cerr
	}
	inst, cerr := p.instance(obj, index, name)
	if cerr != nil {
		return nil, obj, cerr
	}
	fail := func(code Code, details any, format string, args ...any) (*Call, any, *CallError) {
		return nil, obj, callFail(index, name, inst, code, details, format, args...)
	}
	call := &Call{Index: index, Tool: name, Reasoning: reasoning, Instance: inst, Turn: p.comp.Turn.Turn,
		OutputPath: t.OutputPath, OutputMethod: t.OutputMethod}
	args := &agentctx.Object{}
	for _, k := range obj.Keys() {
		val, _ := obj.Get(k)
		switch k {
		case metaTool, DefaultReasoningField, metaInstance:
		case metaScopes:
			scopes, code, msg := t.requestedScopes(val)
			if code != "" {
				return fail(code, nil, "%s", msg)
			}
			call.Scopes = scopes
		case metaActivity, metaDelegate:
			want := t.Activity
			if k == metaDelegate {
				want = t.Delegate
			}
			if s, ok := val.(string); !ok || s != want {
				return fail(CodeMetaConstMismatch, nil, "%s is fixed to %q, got %s", k, want, compact(val))
			}
		case metaOutputPath:
			path, code, msg := t.chosenPath(val)
			if code != "" {
				return fail(code, nil, "%s", msg)
			}
			call.OutputPath = path
		case metaOutputMethod:
			m, code, msg := t.chosenMethod(val)
			if code != "" {
				return fail(code, nil, "%s", msg)
			}
			call.OutputMethod = m
		case metaOutput:
			if t.Kind == KindLatent {
				call.Output, call.HasOutput = val, true
			}
		default:
			if !strings.HasPrefix(k, "_") {
				args.Set(k, val)
			}
		}
	}
	if call.HasOutput && t.HasOutput {
		if probs := ValidateValue(call.Output, t.Output, pointerJoin(ptr, metaOutput)); len(probs) > 0 {
			return fail(CodeCallInvalid, probs, "_output does not match the result schema: %s", probs[0])
		}
	}
	call.Args = reorder(args, agentctx.NewObject("properties", t.Params))
	if code, probs := t.checkArgs(call.Args, ptr); code != "" {
		return fail(code, probs, "%s", probs[0])
	}
	if t.Kind == KindLatent && (!t.HasOutput || !call.HasOutput) {
		if !t.HasOutput {
			return fail(CodeLatentWithoutOutput, nil, "the tool has no activity and declares no _output, so it cannot run")
		}
		return fail(CodeLatentWithoutOutput, nil, "a latent call must give its result in _output")
	}
	return call, obj, nil
}

// normaliseReasoning renames the alias `_why` to the primary name in place
// (§1.2); both present is call_invalid.
func normaliseReasoning(obj *agentctx.Object, index int, tool string) (*agentctx.Object, string, *CallError) {
	why, hasWhy := obj.Get(metaWhy)
	primary, hasPrimary := obj.Get(DefaultReasoningField)
	if hasWhy && hasPrimary {
		return obj, "", callFail(index, tool, "", CodeCallInvalid, nil, "give the reasoning once, as %s or %s, not both", DefaultReasoningField, metaWhy)
	}
	r := primary
	if hasWhy {
		r = why
		out := &agentctx.Object{}
		for _, k := range obj.Keys() {
			v, _ := obj.Get(k)
			if k == metaWhy {
				k = DefaultReasoningField
			}
			out.Set(k, v)
		}
		obj = out
	}
	if r == nil {
		obj.Delete(DefaultReasoningField)
		return obj, "", nil
	}
	s, ok := r.(string)
	if !ok {
		return obj, "", callFail(index, tool, "", CodeCallInvalid, nil, "%s must be a string", DefaultReasoningField)
	}
	return obj, s, nil
}

// instance reads `_instance`: a live instance id or absent (global).
func (p *parser) instance(obj *agentctx.Object, index int, tool string) (string, *CallError) {
	v, ok := obj.Get(metaInstance)
	if !ok {
		return "", nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", callFail(index, tool, "", CodeCallInvalid, nil, "_instance must be a string, got %s", jsonType(v))
	}
	for _, inst := range p.comp.Instances {
		if inst == s {
			return s, nil
		}
	}
	return "", callFail(index, tool, s, CodeInstanceUnknown, nil, "there is no instance %q", s)
}

// requestedScopes checks a call's `_scopes` (X7): entries must come from the
// requested enum; echoed provisioned scopes are accepted and dropped.
func (t *Tool) requestedScopes(v any) ([]string, Code, string) {
	list, ok := stringList(v)
	if !ok {
		return nil, CodeCallInvalid, "_scopes must be an array of strings"
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		switch {
		case seen[s] || containsString(t.Provisioned, s):
		case containsString(t.Requested, s):
			out = append(out, s)
		default:
			return nil, CodeScopeNotAllowed, fmt.Sprintf("scope %q cannot be requested by this tool", s)
		}
		seen[s] = true
	}
	return out, "", ""
}

// chosenPath checks a call's `_outputPath`: an echo of the prescribed path,
// or a writable path matching the declared schema.
func (t *Tool) chosenPath(v any) (string, Code, string) {
	s, ok := v.(string)
	if !ok {
		return "", CodeCallInvalid, "_outputPath must be a string"
	}
	if !t.PathChosen {
		if t.OutputPath == s {
			return s, "", ""
		}
		if t.OutputPath != "" {
			return "", CodeMetaConstMismatch, fmt.Sprintf("_outputPath is fixed to %q, got %q", t.OutputPath, s)
		}
		return "", CodePathNotWritable, "this tool does not take an _outputPath"
	}
	if _, err := agentctx.ParseOutputPath(s); err != nil {
		return "", errorCode(err, CodePathNotWritable), err.Error()
	}
	if probs := ValidateValue(s, t.PathSchema, "/_outputPath"); len(probs) > 0 {
		return "", CodePathNotWritable, fmt.Sprintf("path %q is not allowed for this tool: %s", s, probs[0].Message)
	}
	return s, "", ""
}

// chosenMethod checks a call's `_outputMethod`: an echo of the const, or a
// known method among the declared choices.
func (t *Tool) chosenMethod(v any) (agentctx.Method, Code, string) {
	s, ok := v.(string)
	if !ok {
		return "", CodeCallInvalid, "_outputMethod must be a string"
	}
	m, err := agentctx.ParseMethod(s)
	if err != nil {
		return "", errorCode(err, CodeMethodUnsupported), err.Error()
	}
	if len(t.MethodChoices) == 0 {
		want := t.OutputMethod
		if want == "" {
			want = agentctx.MethodSet
		}
		if m != want {
			return "", CodeMetaConstMismatch, fmt.Sprintf("_outputMethod is fixed to %q, got %q", want, s)
		}
		return t.OutputMethod, "", ""
	}
	for _, c := range t.MethodChoices {
		if c == m {
			return m, "", ""
		}
	}
	return "", CodeMethodUnsupported, fmt.Sprintf("method %q is not offered by this tool", s)
}

// CheckArgs validates a call's parameters against the tool's declared
// parameter schema (meta-properties excluded). With allowRefs, a top-level
// parameter whose whole string value is a reference is accepted in place of
// any type (§1.6: it is validated after resolution). It returns the problems
// found, with JSON pointers below pointer.
func (t *Tool) CheckArgs(args *agentctx.Object, pointer string, allowRefs bool) []Problem {
	schema := paramSchema(t.Declared)
	if args == nil {
		args = &agentctx.Object{}
	}
	if allowRefs {
		c := &agentctx.Object{}
		for _, k := range args.Keys() {
			v, _ := args.Get(k)
			if s, ok := v.(string); ok && agentctx.IsReference(s) {
				schema = withoutProperty(schema, k)
				continue
			}
			c.Set(k, v)
		}
		args = c
	}
	return ValidateValue(args, schema, pointer)
}

// checkArgs is the parse-time argument check: expressions are rejected
// (expression_unsupported), references accepted, the rest validated.
func (t *Tool) checkArgs(args *agentctx.Object, ptr string) (Code, []Problem) {
	for _, k := range args.Keys() {
		v, _ := args.Get(k)
		s, ok := v.(string)
		if !ok || !strings.HasPrefix(strings.TrimSpace(s), agentctx.PathPrefix) {
			continue
		}
		if _, err := agentctx.ParsePath(strings.TrimSpace(s)); errorCode(err, "") == CodeExpressionUnsupported {
			return CodeExpressionUnsupported, []Problem{{Pointer: pointerJoin(ptr, k), Message: err.Error()}}
		}
	}
	if probs := t.CheckArgs(args, ptr, true); len(probs) > 0 {
		return CodeCallInvalid, probs
	}
	return "", nil
}

// paramSchema is the declared parameters schema without meta-properties.
func paramSchema(declared *agentctx.Object) *agentctx.Object {
	if declared == nil {
		return agentctx.NewObject("type", "object")
	}
	s := agentctx.Clone(declared).(*agentctx.Object)
	if props, ok := getObject(s, "properties"); ok {
		for _, k := range append([]string(nil), props.Keys()...) {
			if strings.HasPrefix(k, "_") {
				props.Delete(k)
			}
		}
	}
	if _, ok := s.Get("required"); ok {
		kept := []any{}
		for _, r := range getStrings(s, "required") {
			if !strings.HasPrefix(r, "_") {
				kept = append(kept, r)
			}
		}
		s.Set("required", kept)
	}
	return s
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// errorCode returns the code of an agentctx error, or def.
func errorCode(err error, def Code) Code {
	var e *agentctx.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return def
}
