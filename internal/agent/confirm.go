package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/tool"
)

// Edit confirmation for ordinary (non-protocol) agents [EXT]: a query with
// params.confirmEdits = true makes every call of a backend tool that can
// preview itself (Previewer: the book edit tools) wait for the user's
// approval before it runs, with the events and the /submit answer of the
// protocol runtime's call confirmation (approval.request → /submit
// {decision: approve|deny|partial, approved?, reason?} → request.submit →
// approval.decision). At a call's execution slot its preview and those of
// the later undecided edit calls of the same model turn go out together in
// one request, so a client can approve them all at once. A call whose
// preview fails gets the preview's error result and never runs; a denied
// call gets a call_denied error result the model reads; without an answer
// within the frontend tool timeout every call of the request is denied
// (decision timeout, by policy). The run deadline is paused while waiting.

// ParamConfirmEdits is the query param that turns edit confirmation on.
const ParamConfirmEdits = "confirmEdits"

// Previewer is implemented by backend tools that can tell what a call would
// do without doing it. Preview returns a result whose text is the preview
// as a JSON object (for a book edit {pointer, op, oldMarkdown,
// newMarkdown}), or the error result the call itself would give.
type Previewer interface {
	Preview(ctx context.Context, args json.RawMessage) (tool.Result, error)
}

// confirmation is the decision about one held call.
type confirmation struct {
	decided  bool
	approved bool
	reason   string
}

// confirmsEdits reports whether the run confirms edits.
func (r *run) confirmsEdits() bool {
	var on bool
	return json.Unmarshal(r.spec.Params[ParamConfirmEdits], &on) == nil && on
}

// previewer returns the Previewer of a backend call, nil when it has none.
func previewer(c *callState) Previewer {
	if c.kind != CallBackend || c.entry == nil || c.entry.impl == nil {
		return nil
	}
	pv, _ := c.entry.impl.(Previewer)
	return pv
}

// confirmCall holds an edit call of a confirming run until it is decided.
// It returns done with the call's outcome when the call must not run
// (preview refused, denied); otherwise the call runs.
func (r *run) confirmCall(ctx context.Context, c *callState) (res outcome, done bool, err error) {
	if !c.confirm.decided {
		preview, refused := r.preview(ctx, c)
		if refused != nil {
			return *refused, true, nil
		}
		if err := r.askConfirmation(ctx, c, preview); err != nil {
			return outcome{}, true, err
		}
	}
	if c.confirm.approved {
		return outcome{}, false, nil
	}
	msg := "The user did not approve this edit, so it was not applied."
	if c.confirm.reason != "" {
		msg += " Reason: " + c.confirm.reason
	}
	return errorOutcome(c.name, string(protocol.CodeCallDenied), msg), true, nil
}

// preview runs the Previewer of c: the preview JSON, or the outcome of a
// refused call.
func (r *run) preview(ctx context.Context, c *callState) (json.RawMessage, *outcome) {
	pctx, cancel := context.WithTimeout(WithCall(ctx, c.id), r.agent.Budget.Tool.Timeout())
	defer cancel()
	res, err := previewer(c).Preview(pctx, json.RawMessage(c.arguments()))
	switch {
	case err != nil:
		o := errorOutcome(c.name, ToolCodeFailed, err.Error())
		return nil, &o
	case res.IsError:
		code := res.Code
		if code == "" {
			code = ToolCodeFailed
		}
		o := errorOutcome(c.name, code, res.Text)
		return nil, &o
	}
	return json.RawMessage(res.Text), nil
}

// askConfirmation sends one approval.request for c (previewed as preview)
// and the later undecided edit calls of the turn whose previews succeed,
// waits for the decision and records it on each of them.
func (r *run) askConfirmation(ctx context.Context, c *callState, preview json.RawMessage) error {
	held := []*callState{c}
	calls := []ApprovalCall{approvalCall(c, preview)}
	after := false
	for _, d := range r.turnCalls {
		if d == c {
			after = true
			continue
		}
		if !after || d.confirm.decided || previewer(d) == nil {
			continue
		}
		if pv, refused := r.preview(ctx, d); refused == nil {
			held = append(held, d)
			calls = append(calls, approvalCall(d, pv))
		}
	}
	timeout := r.e.frontendTimeout()
	approval := &Approval{ID: protocol.ConfirmApprovalPrefix + c.id, Turn: r.modelCalls, Calls: calls, Timeout: timeout}
	r.em.emit(Event{Type: ApprovalRequest, Approval: approval})
	d, payload, err := r.awaitDecision(ctx, approval)
	if err != nil {
		return err
	}
	if payload != nil {
		r.em.emit(Event{Type: Submitted, ToolID: approval.ID, Answer: payload})
	}
	approved := map[string]bool{}
	for _, id := range d.Approved {
		approved[id] = true
	}
	out := &protocol.ConfirmDecision{Verdict: d.Verdict, Approved: []string{}, Denied: []string{}, Reason: d.Reason, By: d.By}
	for _, h := range held {
		h.confirm = confirmation{decided: true, approved: approved[h.id], reason: d.Reason}
		if approved[h.id] {
			out.Approved = append(out.Approved, h.id)
		} else {
			out.Denied = append(out.Denied, h.id)
		}
	}
	r.em.emit(Event{Type: ApprovalDecision, Approval: approval, Decision: out})
	return nil
}

// approvalCall is one call of approval.request.
func approvalCall(c *callState, preview json.RawMessage) ApprovalCall {
	params := json.RawMessage(c.arguments())
	if !json.Valid(params) {
		params = json.RawMessage(`{}`)
	}
	return ApprovalCall{ToolID: c.id, ToolName: c.name, Params: params, Preview: preview}
}

// awaitDecision waits for the decision on approval, the run deadline
// paused; without one within its timeout (or when nobody can answer) every
// call is denied by policy.
func (r *run) awaitDecision(ctx context.Context, approval *Approval) (protocol.ConfirmDecision, json.RawMessage, error) {
	r.deadline.pause()
	defer r.deadline.resume()
	a, err := r.e.ask(ctx, approval.Timeout, Question{RunID: r.spec.RunID, ID: approval.ID, Kind: AskApproval,
		Approval: approval})
	switch {
	case err == nil && a.Approval != nil:
		return *a.Approval, a.Raw, nil
	case err == nil:
		return protocol.ConfirmDecision{}, nil, internalf("the answer to %s is not an edit decision", approval.ID)
	case ctx.Err() != nil:
		return protocol.ConfirmDecision{}, nil, ctx.Err()
	case errors.Is(err, ErrNoAnswer):
		return protocol.ConfirmDecision{Verdict: protocol.VerdictDeny, By: protocol.ByPolicy, Reason: err.Error()}, nil, nil
	}
	return protocol.ConfirmDecision{Verdict: protocol.VerdictTimeout, By: protocol.ByPolicy,
		Reason: fmt.Sprintf("no decision within %d ms", approval.Timeout.Milliseconds())}, nil, nil
}
