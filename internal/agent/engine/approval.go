package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/agent/protocol"
)

// paramFields decodes the /submit params of a decision: a JSON object whose
// keys must all be in allowed (reported in sorted order, so the error is
// stable), so that a misspelt field never changes a decision silently.
func paramFields(params json.RawMessage, allowed ...string) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil || fields == nil {
		return nil, errors.New("params must be a JSON object")
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return nil, fmt.Errorf("unknown field %q", k)
		}
	}
	return fields, nil
}

// parseDecision reads the /submit params of a scope decision for req
// (AGENT_PROTOCOL § 5.4): a JSON object {decision, scopes?, reason?,
// remember?}. decision is approve, deny or narrow; scopes must lie inside
// the request (requested or provisioned scopes; narrow needs it, the
// provisioned entries are dropped since they are granted anyway); remember
// is once, run or chat. The decision's Scopes is the granted part of the
// requested scopes (all of them for approve, none for deny). Unknown keys
// are rejected so that a misspelt field never changes a grant silently.
func parseDecision(params json.RawMessage, req protocol.ScopeRequest) (protocol.ScopeDecision, error) {
	fields, err := paramFields(params, "decision", "scopes", "reason", "remember")
	if err != nil {
		return protocol.ScopeDecision{}, err
	}
	d := protocol.ScopeDecision{By: protocol.ByUser}
	if err := stringField(fields, "decision", &d.Verdict); err != nil {
		return d, err
	}
	switch d.Verdict {
	case protocol.VerdictApprove, protocol.VerdictDeny, protocol.VerdictNarrow:
	case "":
		return d, errors.New("decision is required (approve, deny or narrow)")
	default:
		return d, fmt.Errorf("decision must be approve, deny or narrow, not %q", d.Verdict)
	}
	if err := stringField(fields, "reason", &d.Reason); err != nil {
		return d, err
	}
	if err := stringField(fields, "remember", &d.Remember); err != nil {
		return d, err
	}
	switch d.Remember {
	case "", protocol.RememberOnce, protocol.RememberRun, protocol.RememberChat:
	default:
		return d, fmt.Errorf("remember must be once, run or chat, not %q", d.Remember)
	}
	raw, hasScopes := fields["scopes"]
	var scopes []string
	if hasScopes && string(raw) != "null" {
		if err := json.Unmarshal(raw, &scopes); err != nil {
			return d, errors.New("scopes must be an array of strings")
		}
	} else if d.Verdict == protocol.VerdictNarrow {
		return d, errors.New("narrow needs scopes: the requested scopes to grant")
	}
	var granted []string
	for _, s := range scopes {
		switch {
		case slices.Contains(req.Requested, s):
			if !slices.Contains(granted, s) {
				granted = append(granted, s)
			}
		case slices.Contains(req.Provisioned, s):
			// granted anyway
		default:
			return d, fmt.Errorf("scope %q is not part of the request (requested: %s)", s, strings.Join(req.Requested, ", "))
		}
	}
	switch d.Verdict {
	case protocol.VerdictApprove:
		d.Scopes = slices.Clone(req.Requested)
	case protocol.VerdictNarrow:
		d.Scopes = granted
	}
	return d, nil
}

// parseCallDecision reads the /submit params of an edit approval for req
// (the call confirmation extension): a JSON object {decision, approved?,
// reason?}. decision is approve (every call), deny (none) or partial (the
// calls listed in approved, which it needs); approved may only name calls
// of the request. Unknown keys are rejected. The answer of the standard
// confirm form, {confirmed, comment?, approved?} (the approval offered as
// the confirm frontend tool, server.ConfirmTool), is read as approve
// (partial when approved names only some calls) or deny, comment being the
// reason.
func parseCallDecision(params json.RawMessage, req protocol.CallConfirmation) (protocol.ConfirmDecision, error) {
	if fields, err := paramFields(params, "confirmed", "comment", "approved"); err == nil {
		if _, ok := fields["confirmed"]; ok {
			return parseConfirmForm(fields, req)
		}
	}
	fields, err := paramFields(params, "decision", "approved", "reason")
	if err != nil {
		return protocol.ConfirmDecision{}, err
	}
	d := protocol.ConfirmDecision{By: protocol.ByUser}
	if err := stringField(fields, "decision", &d.Verdict); err != nil {
		return d, err
	}
	switch d.Verdict {
	case protocol.VerdictApprove, protocol.VerdictDeny, protocol.VerdictPartial:
	case "":
		return d, errors.New("decision is required (approve, deny or partial)")
	default:
		return d, fmt.Errorf("decision must be approve, deny or partial, not %q", d.Verdict)
	}
	if err := stringField(fields, "reason", &d.Reason); err != nil {
		return d, err
	}
	raw, has := fields["approved"]
	var approved []string
	if has && string(raw) != "null" {
		if err := json.Unmarshal(raw, &approved); err != nil {
			return d, errors.New("approved must be an array of tool ids")
		}
	} else if d.Verdict == protocol.VerdictPartial {
		return d, errors.New("partial needs approved: the tool ids of the calls to run")
	}
	ids := make([]string, len(req.Calls))
	for i, c := range req.Calls {
		ids[i] = c.ToolID
	}
	for _, id := range approved {
		if !slices.Contains(ids, id) {
			return d, fmt.Errorf("tool id %q is not part of the request (calls: %s)", id, strings.Join(ids, ", "))
		}
	}
	switch d.Verdict {
	case protocol.VerdictApprove:
		d.Approved = ids
	case protocol.VerdictDeny:
		if len(approved) > 0 {
			return d, errors.New("deny approves nothing; use partial to run some of the calls")
		}
	case protocol.VerdictPartial:
		for _, id := range ids { // request order, without duplicates
			if slices.Contains(approved, id) {
				d.Approved = append(d.Approved, id)
			}
		}
	}
	return d, nil
}

// parseConfirmForm reads a confirm form's answer {confirmed, comment?,
// approved?} as an edit decision (parseCallDecision).
func parseConfirmForm(fields map[string]json.RawMessage, req protocol.CallConfirmation) (protocol.ConfirmDecision, error) {
	var confirmed bool
	if json.Unmarshal(fields["confirmed"], &confirmed) != nil {
		return protocol.ConfirmDecision{}, errors.New("confirmed must be true or false")
	}
	var comment string
	if err := stringField(fields, "comment", &comment); err != nil {
		return protocol.ConfirmDecision{}, err
	}
	decision := map[string]any{"decision": protocol.VerdictDeny, "reason": comment}
	if confirmed {
		decision["decision"] = protocol.VerdictApprove
		if raw, ok := fields["approved"]; ok && string(raw) != "null" {
			decision["decision"], decision["approved"] = protocol.VerdictPartial, raw
		}
	}
	b, err := json.Marshal(decision)
	if err != nil {
		return protocol.ConfirmDecision{}, err
	}
	d, err := parseCallDecision(b, req)
	if err == nil && d.Verdict == protocol.VerdictPartial && len(d.Approved) == len(req.Calls) {
		d.Verdict = protocol.VerdictApprove
	}
	return d, err
}

// stringField decodes fields[name] into *dst when present and not null.
func stringField(fields map[string]json.RawMessage, name string, dst *string) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	if json.Unmarshal(raw, dst) != nil {
		return fmt.Errorf("%s must be a string", name)
	}
	return nil
}

// runWaits are the pending waits one protocol run registered in the
// engine's waits: frontend calls (runId#toolId), scope approvals
// (runId#scope:<toolId>, AGENT_PROTOCOL § 5.4) and edit approvals
// (runId#calls:<toolId>). Each key is registered once, by whichever comes
// first: the event that shows it to the client (tool.start, scope.request,
// approval.request) or the code that waits for it, so a client
// answering right after the event is never unmatched.
type runWaits struct {
	e     *Engine
	runID string

	mu sync.Mutex
	m  map[string]*pendingWait // by wait key
}

// pendingWait is one registered wait.
type pendingWait struct {
	key string
	ch  <-chan json.RawMessage
	err error // the registration failed (a duplicate key)
}

func newRunWaits(e *Engine, runID string) *runWaits {
	return &runWaits{e: e, runID: runID, m: map[string]*pendingWait{}}
}

// approvalID is the toolId a client submits a scope decision under.
func approvalID(toolID string) string { return ScopeApprovalPrefix + toolID }

// open registers the wait of toolID (a call id, or approvalID(call id))
// once; later calls return the first registration. check validates the
// submitted payloads (nil: any). A key already pending elsewhere makes the
// wait fail.
func (w *runWaits) open(toolID string, check func(json.RawMessage) error) *pendingWait {
	key := waitKey(w.runID, toolID)
	w.mu.Lock()
	defer w.mu.Unlock()
	if pw := w.m[key]; pw != nil {
		return pw
	}
	pw := &pendingWait{key: key}
	pw.ch, pw.err = w.e.waits.registerChecked(key, check)
	w.m[key] = pw
	return pw
}

// openScope registers the approval of req (its payloads must be valid
// decisions for it).
func (w *runWaits) openScope(req protocol.ScopeRequest) *pendingWait {
	return w.open(approvalID(req.ToolID), func(p json.RawMessage) error {
		_, err := parseDecision(p, req)
		return err
	})
}

// await waits for the payload of pw: up to timeout (none when timeout <=
// 0), or until ctx is done (then ctx.Err()). A nil payload with a nil
// error means the timeout passed; the key is gone in every case.
func (w *runWaits) await(ctx context.Context, pw *pendingWait, timeout time.Duration) (json.RawMessage, error) {
	defer w.forget(pw)
	if pw.err != nil {
		return nil, pw.err
	}
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case p := <-pw.ch:
		return p, nil
	case <-expired:
		p, _ := w.e.waits.drop(pw.key, pw.ch) // a submit that raced the timer still counts
		return p, nil
	case <-ctx.Done():
		if p, ok := w.e.waits.drop(pw.key, pw.ch); ok {
			return p, nil
		}
		return nil, ctx.Err()
	}
}

// awaitScope waits for the decision of req (registered with openScope).
// It returns the decision and the submitted params; without a decision in
// time (timeout > 0) the decision is VerdictTimeout by policy and params
// are nil.
func (w *runWaits) awaitScope(ctx context.Context, req protocol.ScopeRequest, timeout time.Duration) (protocol.ScopeDecision, json.RawMessage, error) {
	p, err := w.await(ctx, w.openScope(req), timeout)
	switch {
	case err != nil:
		return protocol.ScopeDecision{}, nil, err
	case p == nil:
		return protocol.ScopeDecision{Verdict: protocol.VerdictTimeout, By: protocol.ByPolicy,
			Reason: fmt.Sprintf("no decision within %d ms", timeout.Milliseconds())}, nil, nil
	}
	d, err := parseDecision(p, req) // validated at release: cannot fail
	return d, p, err
}

// openCalls registers the edit approval of req (its payloads must be valid
// decisions for it).
func (w *runWaits) openCalls(req protocol.CallConfirmation) *pendingWait {
	return w.open(req.ApprovalID, func(p json.RawMessage) error {
		_, err := parseCallDecision(p, req)
		return err
	})
}

// awaitCalls waits for the decision of req (registered with openCalls)
// until ctx is done; it returns the decision and the submitted params.
func (w *runWaits) awaitCalls(ctx context.Context, req protocol.CallConfirmation) (protocol.ConfirmDecision, json.RawMessage, error) {
	p, err := w.await(ctx, w.openCalls(req), 0)
	if err != nil {
		return protocol.ConfirmDecision{}, nil, err
	}
	d, err := parseCallDecision(p, req) // validated at release: cannot fail
	return d, p, err
}

// forget removes pw from the run's registrations (its key is gone).
func (w *runWaits) forget(pw *pendingWait) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[pw.key] == pw {
		delete(w.m, pw.key)
	}
}

// close drops the keys nobody waits for any more (the run ended).
func (w *runWaits) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, pw := range w.m {
		if pw.err == nil {
			w.e.waits.drop(pw.key, pw.ch)
		}
		delete(w.m, key)
	}
}
