package protocol

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// Call confirmation (an aite extension of AGENT_PROTOCOL: § 6.3 applies
// edits directly until Plan DAG approval gates ship; this is the v1 gate).
// The calls of Agent.ConfirmTools pass the guard and the scope approval,
// then are held instead of dispatched; when nothing runs and nothing else is
// ready, the drain puts all its held calls to the Confirmer in one request,
// dispatches the approved ones and fails the others with call_denied.

// Confirmation policies of Approval.Calls.
const (
	CallsAsk  = "ask"
	CallsAuto = "auto"
)

// VerdictPartial is the decision of a confirmation that approved some of
// its calls only (the other verdicts are VerdictApprove, VerdictDeny and
// VerdictTimeout).
const VerdictPartial = "partial"

// ConfirmApprovalPrefix prefixes the ApprovalID of a call confirmation:
// "calls:" + the tool id of its first call.
const ConfirmApprovalPrefix = "calls:"

// ConfirmCall is one held call shown for confirmation.
type ConfirmCall struct {
	ToolID   string           `json:"toolId"`
	Tool     string           `json:"tool"`
	Instance string           `json:"instance,omitempty"`
	Args     *agentctx.Object `json:"args"`    // the resolved parameters
	Preview  any              `json:"preview"` // what the call would do (Previewer); nil when unknown
}

// CallConfirmation is one confirmation request: the held calls of one drain,
// in call-index order.
type CallConfirmation struct {
	RunID        string        `json:"runId"`
	ParentToolID string        `json:"parentToolId,omitempty"` // set for a sub-run's calls
	Turn         int           `json:"turn"`
	ApprovalID   string        `json:"approvalId"` // ConfirmApprovalPrefix + the first call's tool id
	Calls        []ConfirmCall `json:"calls"`
	Timeout      time.Duration `json:"-"`
}

// ConfirmDecision is a Confirmer's answer. Verdict may be VerdictApprove
// (every call, Approved is ignored), VerdictDeny or VerdictTimeout (none),
// or VerdictPartial / "" (the calls listed in Approved). Approved must
// only name calls of the request, else the confirmation fails
// (approval_failed). The runtime reports the effective decision: Verdict
// approve, deny, partial or timeout, Approved and Denied listing every call.
type ConfirmDecision struct {
	Verdict  string   `json:"decision"`
	Approved []string `json:"approved"`
	Denied   []string `json:"denied"`
	Reason   string   `json:"reason,omitempty"`
	By       string   `json:"by,omitempty"` // "user", "policy", "hook"
}

// Confirmer confirms held calls (policy Approval.Calls "ask"). It may be
// called from several goroutines at once (sub-runs).
type Confirmer interface {
	Confirm(ctx context.Context, req CallConfirmation) (ConfirmDecision, error)
}

// Previewer is implemented by activities that can tell what a call would
// do without doing it (for an edit: the item's Markdown before and after).
// The preview is shown with the confirmation request; a preview error fails
// the call (activity_failed) without asking, since the call itself would
// fail the same way.
type Previewer interface {
	Preview(ctx context.Context, call *Call, tool *Tool, scoped Scoped) (any, error)
}

// confirms reports whether calls of t are held for confirmation.
func (r *run) confirms(t *Tool) bool {
	return len(r.a.ConfirmTools) > 0 && r.a.Approval.Calls != CallsAuto && t.Name != ConsultAdvisor &&
		(t.Kind == KindExplicit || t.Kind == KindDelegated) && slices.Contains(r.a.ConfirmTools, t.Name)
}

// held is a call waiting for its confirmation: its scoped view and preview.
type held struct {
	snap    agentctx.Context
	view    []agentctx.Message
	preview any
}

// hold computes the preview of a call about to be held (on its drain
// worker). A failing preview fails the call.
func (r *run) hold(ctx context.Context, snap agentctx.Context, view []agentctx.Message, call *Call, t *Tool, o *outcome) {
	h := &held{snap: snap, view: view}
	if t.Kind == KindExplicit {
		if act, ok := r.tree.reg.Activity(t.Activity); ok && act != nil {
			if pv, ok := act.(Previewer); ok {
				v, err := pv.Preview(ctx, call, t, NewScoped(view))
				if err != nil {
					o.fail(CodeActivityFailed, "%s failed: %v", describe(call), err)
					return
				}
				if v != nil {
					if h.preview, err = toOrdered(v); err != nil {
						o.fail(CodeActivityFailed, "%s returned a preview that is not JSON: %v", describe(call), err)
						return
					}
				}
			}
		}
	}
	o.held = h
}

// confirm puts the held calls of a drain to the Confirmer in one request
// and returns the approved ones; the others are completed with call_denied
// (or approval_failed). A nil result with a non-nil error means ctx ended
// while waiting: nothing was decided.
func (r *run) confirm(ctx context.Context, turn int, calls []outcome, d *drainResult) ([]outcome, error) {
	slices.SortStableFunc(calls, func(a, b outcome) int { return a.call.Index - b.call.Index })
	req := CallConfirmation{RunID: r.tree.runID, ParentToolID: r.parentToolID, Turn: turn,
		ApprovalID: ConfirmApprovalPrefix + calls[0].call.ToolID, Timeout: r.approvalTimeout()}
	ids := make([]string, len(calls))
	for i, o := range calls {
		ids[i] = o.call.ToolID
		req.Calls = append(req.Calls, ConfirmCall{ToolID: o.call.ToolID, Tool: o.call.Tool, Instance: o.call.Instance,
			Args: cloneArgs(o.call.Args), Preview: o.held.preview})
	}
	var dec ConfirmDecision
	var failed error // the confirmation failed: approval_failed for every call
	if r.tree.rt.Confirmer == nil {
		dec = ConfirmDecision{Verdict: VerdictDeny, Reason: "no approver", By: ByPolicy}
	} else {
		if r.events() {
			rq := copyConfirmation(req)
			r.emit(Event{Type: EvConfirmRequest, Turn: turn, Confirm: &rq})
		}
		var err error
		if dec, err = r.askConfirmer(ctx, req); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			failed = err
		}
	}
	approved, err := effectiveDecision(&dec, ids)
	if err != nil && failed == nil {
		failed = err
	}
	if failed != nil {
		dec = ConfirmDecision{Verdict: VerdictDeny, Reason: "the confirmation failed: " + failed.Error(), By: ByPolicy}
		approved, _ = effectiveDecision(&dec, ids)
	}
	if r.events() {
		rq, dc := copyConfirmation(req), copyDecision(dec)
		r.emit(Event{Type: EvConfirmDecision, Turn: turn, Confirm: &rq, Confirmed: &dc})
	}
	if len(r.tree.rt.Hooks.OnCallDecision) > 0 {
		r.tree.onCallDecision(req, dec)
	}
	if failed != nil {
		for _, o := range calls {
			o.denied = true
			o.fail(CodeApprovalFailed, "the confirmation of %s failed: %v", describe(o.call), failed)
			r.complete(o, d)
		}
		return nil, nil
	}
	var out []outcome
	for _, o := range calls {
		if slices.Contains(approved, o.call.ToolID) {
			out = append(out, o)
			continue
		}
		o.denied = true
		reason := dec.Reason
		switch {
		case dec.Verdict == VerdictTimeout && reason == "":
			reason = "no decision before the timeout"
		case reason == "":
			reason = "the user did not approve it"
		}
		o.fail(CodeCallDenied, "%s was not run: %s", describe(o.call), reason)
		o.err.Details = agentctx.NewObject("decision", dec.Verdict, "reason", reason, "approvalId", req.ApprovalID)
		r.complete(o, d)
	}
	return out, nil
}

// effectiveDecision resolves a decision against the request's tool ids
// (DecideCalls): it returns the approved ids and fills in the effective
// Verdict, Approved, Denied and By.
func effectiveDecision(dec *ConfirmDecision, ids []string) ([]string, error) {
	var chosen []string
	switch dec.Verdict {
	case VerdictApprove:
		chosen = ids
	case VerdictDeny, VerdictTimeout:
	case VerdictPartial, "":
		if bad := notIn(dec.Approved, ids); len(bad) > 0 {
			return nil, fmt.Errorf("the decision approves %s, which %s not part of the request", strings.Join(bad, ", "), isAre(len(bad)))
		}
		chosen = dec.Approved
	default:
		return nil, fmt.Errorf("unknown decision %q", dec.Verdict)
	}
	d := DecideCalls(ids, chosen)
	if dec.Verdict != VerdictTimeout {
		dec.Verdict = d.Verdict
	}
	dec.Approved, dec.Denied = nonNil(d.Approved), nonNil(notIn(ids, d.Approved))
	if dec.By == "" {
		dec.By = ByUser
	}
	return d.Approved, nil
}

// DecideCalls is the rule of a person's decision over the calls ids of a
// request (agent.Approval.ToolIDs): the calls chosen names run, in request
// order and once each (names not of the request are ignored); the verdict
// is approve when that is every call, deny when none, partial otherwise.
// A confirmation resolves its decision by it, the command line's prompt
// decides by it, and the server reads a /submit by it.
func DecideCalls(ids, chosen []string) ConfirmDecision {
	d := ConfirmDecision{Verdict: VerdictPartial, By: ByUser}
	for _, id := range ids {
		if slices.Contains(chosen, id) {
			d.Approved = append(d.Approved, id)
		}
	}
	switch len(d.Approved) {
	case len(ids):
		d.Verdict = VerdictApprove
	case 0:
		d.Verdict = VerdictDeny
	}
	return d
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// askConfirmer asks the Confirmer with the approval timeout, on its own
// goroutine like the Approver (see decide): past the timeout the decision
// is "timeout" by policy.
func (r *run) askConfirmer(ctx context.Context, req CallConfirmation) (ConfirmDecision, error) {
	return awaitDecision(ctx, req.Timeout, func(tctx context.Context) (ConfirmDecision, error) {
		return r.tree.rt.Confirmer.Confirm(tctx, copyConfirmation(req))
	}, ConfirmDecision{Verdict: VerdictTimeout, Reason: "no decision before the timeout", By: ByPolicy})
}

// copyConfirmation returns a deep copy of a request (arguments and
// previews are cloned).
func copyConfirmation(req CallConfirmation) CallConfirmation {
	c := req
	c.Calls = make([]ConfirmCall, len(req.Calls))
	for i, call := range req.Calls {
		call.Args = cloneArgs(call.Args)
		call.Preview = agentctx.Clone(call.Preview)
		c.Calls[i] = call
	}
	return c
}

// cloneArgs returns a deep copy of call arguments; nil stays nil.
func cloneArgs(args *agentctx.Object) *agentctx.Object {
	if args == nil {
		return nil
	}
	c, _ := agentctx.Clone(args).(*agentctx.Object)
	return c
}

func copyDecision(d ConfirmDecision) ConfirmDecision {
	c := d
	c.Approved, c.Denied = slices.Clone(d.Approved), slices.Clone(d.Denied)
	return c
}

func (t *tree) onCallDecision(req CallConfirmation, dec ConfirmDecision) {
	for _, h := range t.rt.Hooks.OnCallDecision {
		rq, d := copyConfirmation(req), copyDecision(dec)
		t.observe("OnCallDecision", func() { h(rq, d) })
	}
}
