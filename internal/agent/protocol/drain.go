package protocol

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
)

// resultsPath is where unpathed explicit results are logged (§1.6).
var resultsPath = agentctx.Path{Kind: "data", Segments: []string{"results"}}

// weightOf returns an advisor's weight by id (1 when unknown).
func weightOf(comp *Composition) func(id string) float64 {
	return func(id string) float64 {
		if a := comp.Advisor(id); a != nil {
			return a.Weight
		}
		return 1
	}
}

func (r *run) spread() float64 {
	if r.a.Guard != nil && r.a.Guard.DisagreementSpread > 0 {
		return r.a.Guard.DisagreementSpread
	}
	return DefaultDisagreementSpread
}

// turnTallies are the tallies of all of a turn's opinions, instanced ones
// included, in tool fold order (for snapshots, steps and OnAdvice).
func (r *run) turnTallies(comp *Composition, opinions []Opinion) []Tally {
	if len(opinions) == 0 {
		return nil
	}
	all := make([]Opinion, len(opinions))
	for i, o := range opinions {
		all[i] = o
		all[i].Instance = ""
	}
	ts := Tallies(all, weightOf(comp), "", r.spread())
	pos := func(tool string) int {
		for i, t := range comp.Tools {
			if t.Name == tool {
				return i
			}
		}
		return len(comp.Tools)
	}
	slices.SortStableFunc(ts, func(a, b Tally) int { return cmp.Compare(pos(a.Tool), pos(b.Tool)) })
	return ts
}

// callTally is the tally of a call's tool over the opinions visible to its
// instance (§3.2); n = 0 when nobody voted.
func (r *run) callTally(comp *Composition, opinions []Opinion, call *Call) Tally {
	for _, t := range Tallies(opinions, weightOf(comp), call.Instance, r.spread()) {
		if t.Tool == call.Tool {
			return t
		}
	}
	return Tally{Tool: call.Tool}
}

// advise emits one snapshot per opinion, stores them as advice and calls
// OnAdvice (§3 step 8).
func (r *run) advise(turn int, comp *Composition, opinions []Opinion, tallies []Tally, warnings []Warning) {
	for _, o := range opinions {
		if r.events() {
			c := copyOpinion(o)
			r.emit(Event{Type: EvAdvisorSnapshot, Turn: turn, Instance: o.Instance, Opinion: &c, Tallies: slices.Clone(tallies)})
		}
		r.append(adviceMessage(turn, o))
	}
	if len(r.tree.rt.Hooks.OnAdvice) > 0 && len(opinions) > 0 {
		r.tree.onAdvice(AdviceReport{Turn: turn, Opinions: opinions, Tallies: tallies, Warnings: warnings})
	}
}

// adviceMessage stores an opinion (§1.5 Advice).
func adviceMessage(turn int, o Opinion) agentctx.Message {
	weights := &agentctx.Object{}
	for _, w := range o.Weights {
		weights.Set(w.Tool, json.Number(strconv.FormatFloat(w.Value, 'f', -1, 64)))
	}
	answer := &agentctx.Object{}
	if o.Answer != nil {
		answer, _ = agentctx.Clone(o.Answer).(*agentctx.Object)
	}
	var warns []string
	for _, w := range o.Warnings {
		warns = append(warns, string(w.Code))
	}
	return agentctx.Message{Type: agentctx.TypeAdvice, Advice: &agentctx.Advice{
		ID: o.ID, Instance: o.Instance, Turn: turn, Opinion: answer, Weights: weights, RawCalls: o.RawCalls, Warnings: warns,
	}}
}

// drainResult is what a drain tells its turn.
type drainResult struct {
	errs      []CallError
	summary   TurnSummary
	budgetCap string
}

// outcome is what one call's pipeline reports back to the drain.
type outcome struct {
	call       *Call
	tool       *Tool
	msgs       []agentctx.Message // appended on completion, in order
	result     string             // tool.result payload on success
	err        *CallError
	dispatched bool  // ran an activity, a sub-run or a consultation
	denied     bool  // refused by the guard or the approval
	overBudget bool  // the tool-call budget had no call left: not dispatched
	held       *held // waiting for its confirmation (see Confirmer)
	modelCalls int
	usage      llm.Usage
	warnings   []Warning
}

func (o *outcome) fail(code Code, format string, args ...any) {
	o.err = &CallError{Index: o.call.Index, Tool: o.call.Tool, Instance: o.call.Instance, Code: code, Message: fmt.Sprintf(format, args...)}
}

// toolType maps an execution kind to the tool.start type (§5.3).
func toolType(t *Tool) string {
	switch {
	case t.Name == ConsultAdvisor:
		return ToolTypeFunction
	case t.Kind == KindLatent:
		return ToolTypeLatent
	case t.Kind == KindDelegated:
		return ToolTypeDelegate
	}
	return ToolTypeFunction
}

// describe names a call in messages: "tool" or "tool (instance X)".
func describe(c *Call) string {
	if c.Instance != "" {
		return fmt.Sprintf("%s (instance %s)", c.Tool, c.Instance)
	}
	return c.Tool
}

// codeOf returns the protocol code of an agentctx error, or def.
func codeOf(err error, def Code) Code {
	var e *agentctx.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return def
}

// complete applies one outcome on the loop goroutine: appends its messages,
// emits tool.result and records the error.
func (r *run) complete(o outcome, d *drainResult) {
	if o.dispatched {
		r.stats.toolCalls++
		d.summary.Dispatched = append(d.summary.Dispatched, o.call.ToolID)
	}
	r.stats.modelCalls += o.modelCalls
	r.addUsage(o.usage)
	r.warn(o.warnings...)
	for _, m := range o.msgs {
		r.append(m)
		if m.Type != agentctx.TypeAdvice && len(r.tree.rt.Hooks.OnWrite) > 0 {
			r.tree.onWrite(m)
		}
	}
	if o.overBudget {
		return
	}
	if o.err != nil {
		if o.denied {
			d.summary.Denied = append(d.summary.Denied, o.call.ToolID)
		}
		d.errs = append(d.errs, *o.err)
		if r.events() {
			payload := agentctx.NewObject("tool", o.call.Tool, "ok", false, "code", string(o.err.Code), "error", o.err.Message)
			r.emit(Event{Type: EvToolResult, Turn: o.call.Turn, ToolID: o.call.ToolID, ToolName: o.call.Tool,
				Instance: o.call.Instance, Result: encodeText(payload), OK: false, Code: o.err.Code})
		}
		return
	}
	if r.events() {
		r.emit(Event{Type: EvToolResult, Turn: o.call.Turn, ToolID: o.call.ToolID, ToolName: o.call.Tool,
			Instance: o.call.Instance, Result: o.result, OK: true})
	}
}

// latent handles a latent call: its `_output` is the result, written at its
// path or only shown (§4.1, §1.6).
func (r *run) latent(comp *Composition, opinions []Opinion, c *Call, t *Tool) outcome {
	o := outcome{call: c, tool: t}
	deny, warns := r.guardVerdict(c, r.callTally(comp, opinions, c))
	o.warnings = warns
	if deny != nil {
		o.denied = true
		o.fail(CodeGuardDenied, "%s", deny.Reason)
		return o
	}
	if !c.HasOutput {
		o.fail(CodeLatentWithoutOutput, "%s is latent and has no `_output`", describe(c))
		return o
	}
	o.result = encodeText(c.Output)
	if c.OutputPath != "" {
		m, cerr := r.writeMessage(c, c.OutputPath, c.OutputMethod, c.Output)
		if cerr != nil {
			o.err = cerr
			return o
		}
		o.msgs = append(o.msgs, m)
	}
	return o
}

// execute runs one ready call's pipeline on a drain worker: guard →
// approval → scoped view → dispatch, or → preview and hold for a call to
// confirm (see Confirmer). snap is the context when the call became ready;
// call.Args are resolved.
func (r *run) execute(ctx context.Context, snap agentctx.Context, comp *Composition, opinions []Opinion, call *Call, t *Tool) (o outcome) {
	o = outcome{call: call, tool: t}
	defer recoverCall(&o)
	if t.Name != ConsultAdvisor {
		deny, warns := r.guardVerdict(call, r.callTally(comp, opinions, call))
		o.warnings = warns
		if deny != nil {
			o.denied = true
			o.fail(CodeGuardDenied, "%s", deny.Reason)
			return o
		}
	}
	granted := slices.Clone(t.Provisioned)
	if len(call.Scopes) > 0 && (t.Kind == KindExplicit || t.Kind == KindDelegated) && t.Name != ConsultAdvisor {
		approved, cerr := r.approve(ctx, snap, call, t)
		if cerr != nil {
			o.denied = true
			o.err = cerr
			return o
		}
		granted = union(granted, approved)
	}
	var view []agentctx.Message
	if len(granted) > 0 {
		view = Scope(snap, call.Instance, granted)
	}
	if r.confirms(t) {
		r.hold(ctx, snap, view, call, t, &o)
		return o
	}
	r.dispatch(ctx, snap, comp, view, call, t, &o)
	return o
}

// release dispatches a confirmed call on a drain worker.
func (r *run) release(ctx context.Context, held outcome) (o outcome) {
	o = outcome{call: held.call, tool: held.tool}
	defer recoverCall(&o)
	r.dispatch(ctx, held.held.snap, nil, held.held.view, o.call, o.tool, &o)
	return o
}

// recoverCall turns a panic of a call's pipeline into activity_failed.
func recoverCall(o *outcome) {
	if p := recover(); p != nil {
		o.msgs, o.result, o.held = nil, "", nil
		o.fail(CodeActivityFailed, "%s failed: panic: %v", describe(o.call), p)
	}
}

// dispatch takes one tool call from the budget and runs the call by kind.
// comp is only needed for a consultation (never held).
func (r *run) dispatch(ctx context.Context, snap agentctx.Context, comp *Composition, view []agentctx.Message, call *Call, t *Tool, o *outcome) {
	if !r.budget.take(false) {
		o.overBudget = true
		return
	}
	o.dispatched = true
	switch {
	case t.Name == ConsultAdvisor:
		r.consult(ctx, snap, comp, call, o)
	case t.Kind == KindDelegated:
		r.delegate(ctx, view, call, t, o)
	default:
		r.activity(ctx, view, call, t, o)
	}
}

// activity dispatches an explicit call to its registered activity (§4.5).
func (r *run) activity(ctx context.Context, view []agentctx.Message, call *Call, t *Tool, o *outcome) {
	act, ok := r.tree.reg.Activity(t.Activity)
	if !ok || act == nil {
		o.fail(CodeActivityFailed, "%s failed: no activity %q is registered", describe(call), t.Activity)
		return
	}
	res, err := act.Run(ctx, call, t, NewScoped(view))
	if err != nil {
		code := CodeActivityFailed
		if errors.Is(err, context.DeadlineExceeded) || llm.IsKind(err, llm.Timeout) {
			code = CodeActivityTimeout
		}
		o.fail(code, "%s failed: %v", describe(call), err)
		return
	}
	r.applyResult(call, res, o)
}

// applyResult turns a call's result into messages (§4.5): messages are
// appended verbatim; a value is written at the call's output path in its
// instance, or logged to †data.results when unpathed (UnpathedResults "log").
func (r *run) applyResult(call *Call, res Result, o *outcome) {
	if len(res.Messages) > 0 {
		objs := make([]any, 0, len(res.Messages))
		for i, m := range res.Messages {
			obj := m.Object()
			if _, err := agentctx.MessageFromObject(obj); err != nil {
				o.fail(CodeActivityFailed, "%s returned an invalid message %d: %v", describe(call), i, err)
				return
			}
			objs = append(objs, obj)
		}
		o.msgs = append(o.msgs, res.Messages...)
		o.result = encodeText(objs)
		return
	}
	erase := call.OutputMethod == agentctx.MethodErase && call.OutputPath != ""
	if res.Value == nil && !erase {
		return
	}
	v, err := toOrdered(res.Value)
	if err != nil {
		o.fail(CodeActivityFailed, "%s returned a value that is not JSON: %v", describe(call), err)
		return
	}
	o.result = encodeText(v)
	switch {
	case call.OutputPath != "":
		m, cerr := r.writeMessage(call, call.OutputPath, call.OutputMethod, v)
		if cerr != nil {
			o.err = cerr
			return
		}
		o.msgs = append(o.msgs, m)
	case r.a.UnpathedResults != UnpathedDrop:
		entry := agentctx.NewObject("turn", json.Number(strconv.Itoa(call.Turn)), "tool", call.Tool)
		if call.Instance != "" {
			entry.Set("instance", call.Instance)
		}
		entry.Set("result", v)
		m, err := agentctx.Write{Path: resultsPath, Method: agentctx.MethodPush, Value: entry, Call: callRef(call), Date: r.tree.rt.now()}.Message()
		if err != nil {
			o.fail(CodeActivityFailed, "%s: logging the result failed: %v", describe(call), err)
			return
		}
		o.msgs = append(o.msgs, m)
	}
}

func callRef(c *Call) agentctx.CallRef {
	return agentctx.CallRef{ToolID: c.ToolID, Tool: c.Tool, Turn: c.Turn, Index: c.Index}
}

// writeMessage builds the write of value at path in the call's instance.
func (r *run) writeMessage(c *Call, path string, method agentctx.Method, value any) (agentctx.Message, *CallError) {
	fail := func(err error) *CallError {
		return &CallError{Index: c.Index, Tool: c.Tool, Instance: c.Instance, Code: codeOf(err, CodePathNotWritable),
			Message: fmt.Sprintf("%s cannot write %s: %v", describe(c), path, err)}
	}
	p, err := agentctx.ParseOutputPath(path)
	if err != nil {
		return agentctx.Message{}, fail(err)
	}
	m, err := agentctx.Write{Path: p, Instance: c.Instance, Method: method, Value: value, Call: callRef(c), Date: r.tree.rt.now()}.Message()
	if err != nil {
		return agentctx.Message{}, fail(err)
	}
	return m, nil
}

// validateResolved validates the resolved parameters of a call that used
// references against the tool's parameters (§1.6: the resolved value is
// validated at dispatch). It returns "" when valid or when no reference was
// used.
func validateResolved(t *Tool, args, resolved *agentctx.Object) string {
	if t == nil || args == nil {
		return ""
	}
	used := false
	for _, k := range args.Keys() {
		if s, ok := get(args, k).(string); ok && agentctx.IsReference(s) {
			used = true
			break
		}
	}
	if !used {
		return ""
	}
	if probs := t.CheckArgs(resolved, "", false); len(probs) > 0 {
		return probs[0].String()
	}
	return ""
}

// union returns a followed by the elements of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
