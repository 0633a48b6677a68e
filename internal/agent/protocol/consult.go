package protocol

import (
	"context"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// consult runs the built-in ConsultAdvisor activity (§2.4): one extra model
// request on the current context plus the advisor's persona and the
// question, with the advisor's entry variant minus `id` as the schema. The
// opinion is stored as advice, emitted as a consulted advisor.snapshot and
// returned as the tool result.
func (r *run) consult(ctx context.Context, snap agentctx.Context, comp *Composition, call *Call, o *outcome) {
	id, _ := argString(call.Args, "id")
	question, _ := argString(call.Args, "question")
	aa := comp.Advisor(id)
	if aa == nil || aa.Wire == nil {
		o.fail(CodeActivityFailed, "%s failed: no advisor %q", describe(call), id)
		return
	}
	adv, schema := aa.Advisor, consultSchema(aa.Wire)
	wire, err := agentctx.Encode(schema)
	if err != nil {
		o.fail(CodeActivityFailed, "%s failed: %v", describe(call), err)
		return
	}
	if !r.budget.take(true) {
		o.fail(CodeActivityFailed, "%s failed: the model-call budget is exhausted", describe(call))
		return
	}
	o.modelCalls++

	cc := *comp
	cc.Wire, cc.WireJSON, cc.Validation = schema, wire, schema
	instance := ""
	if adv.IsInstanced {
		instance = call.Instance
	}
	cc.Turn.Notes = []string{consultNote(adv, instance, question, wire)}
	resp, req, err := r.request(ctx, &cc, snap)
	o.usage = resp.Usage
	if err != nil {
		o.fail(CodeActivityFailed, "%s failed: %v", describe(call), err)
		return
	}
	raw, _, err := Extract(&cc, resp.Message)
	if err != nil {
		o.fail(CodeActivityFailed, "%s failed: the advisor's reply is unusable: %v", describe(call), err)
		return
	}
	v, err := agentctx.Decode(raw)
	obj, isObj := v.(*agentctx.Object)
	if err != nil || !isObj {
		o.fail(CodeActivityFailed, "%s failed: the advisor's reply is not a JSON object", describe(call))
		return
	}
	op := Opinion{ID: adv.ID, Instance: instance, Answer: &agentctx.Object{}, Consulted: true}
	for _, k := range obj.Keys() {
		if k == "id" || k == "_instance" || k == "calls" {
			continue
		}
		val, _ := obj.Get(k)
		op.Answer.Set(k, val)
	}
	if calls, ok := obj.Get("calls"); ok {
		names := make([]string, 0, len(comp.Tools))
		for _, t := range comp.Tools {
			names = append(names, t.Name)
		}
		op.Weights, op.RawCalls, op.Warnings = ParseWeights(calls, names)
	}
	o.warnings = append(o.warnings, op.Warnings...)
	if r.events() {
		tallies := Tallies([]Opinion{op}, weightOf(comp), instance, r.spread())
		r.emit(Event{Type: EvStep, Turn: call.Turn, Step: &Step{
			Turn: call.Turn, Stage: r.consultStage(), ParentToolID: r.parentToolID, Request: req,
			Reply: resp.Message, Solution: obj, Warnings: op.Warnings, Tallies: tallies, Usage: resp.Usage,
		}})
		c := copyOpinion(op)
		r.emit(Event{Type: EvAdvisorSnapshot, Turn: call.Turn, ToolID: call.ToolID, Instance: instance, Opinion: &c, Tallies: tallies})
	}
	msg := adviceMessage(call.Turn, op)
	o.msgs = append(o.msgs, msg)
	o.result = encodeText(msg.Object())
}

func (r *run) consultStage() string {
	if r.depth > 0 {
		return "delegate"
	}
	return "consult"
}

// consultSchema is the advisor's wire entry variant minus `id` and minus
// `_instance` (the consulting call's instance decides).
func consultSchema(wire *agentctx.Object) *agentctx.Object {
	s := withoutProperty(wire, "id")
	return withoutProperty(s, "_instance")
}

// consultNote is the derived-tier note of a consultation request.
func consultNote(adv agentctx.Advisor, instance, question string, schema []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Consultation: answer as the advisor %q", adv.ID)
	if instance != "" {
		fmt.Fprintf(&b, " for instance %q", instance)
	}
	b.WriteString(", not as the agent.\n")
	if adv.Role != "" {
		fmt.Fprintf(&b, "Role: %s\n", adv.Role)
	}
	if len(adv.Scopes) > 0 {
		fmt.Fprintf(&b, "Prioritise: %s; you may still use everything.\n", strings.Join(adv.Scopes, ", "))
	}
	fmt.Fprintf(&b, "Question: %s\n", question)
	b.WriteString("Reply with one JSON object (no solution) matching this schema; `calls` is a JSON object string mapping tool names to confidences 0..100:\n")
	b.Write(schema)
	return b.String()
}

// argString reads a string parameter.
func argString(args *agentctx.Object, key string) (string, bool) {
	if args == nil {
		return "", false
	}
	return getString(args, key)
}
