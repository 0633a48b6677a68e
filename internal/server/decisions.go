package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/agent"
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

// parseCallDecision reads the /submit params of an edit approval of the calls ids
// (the call confirmation extension): a JSON object {decision, approved?,
// reason?}. decision is approve (every call), deny (none) or partial (the
// calls listed in approved, which it needs); approved may only name calls
// of the request. Unknown keys are rejected. The answer of the standard
// confirm form, {confirmed, comment?, approved?} (the approval offered as
// the confirm frontend tool, server.ConfirmTool), is read as approve
// (partial when approved names only some calls) or deny, comment being the
// reason.
func parseCallDecision(params json.RawMessage, ids []string) (protocol.ConfirmDecision, error) {
	if fields, err := paramFields(params, "confirmed", "comment", "approved"); err == nil {
		if _, ok := fields["confirmed"]; ok {
			return parseConfirmForm(fields, ids)
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
		d.Approved = protocol.DecideCalls(ids, approved).Approved // request order, without duplicates
	}
	return d, nil
}

// parseConfirmForm reads a confirm form's answer {confirmed, comment?,
// approved?} as an edit decision (parseCallDecision).
func parseConfirmForm(fields map[string]json.RawMessage, ids []string) (protocol.ConfirmDecision, error) {
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
	d, err := parseCallDecision(b, ids)
	if err == nil && d.Verdict == protocol.VerdictPartial && protocol.DecideCalls(ids, d.Approved).Verdict == protocol.VerdictApprove {
		d.Verdict = protocol.VerdictApprove // every call listed
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

// answerOf parses what a client submitted for a pending question into the
// typed answer the run waits for: any JSON for a frontend call, a scope
// decision, an edit decision.
func answerOf(q agent.Question, params json.RawMessage) (agent.Answer, error) {
	a := agent.Answer{Raw: params}
	switch q.Kind {
	case agent.AskScope:
		d, err := parseDecision(params, *q.Scope)
		if err != nil {
			return a, badRequest("Invalid scope decision: %v", err)
		}
		a.Scope = &d
	case agent.AskApproval:
		d, err := parseCallDecision(params, q.Approval.ToolIDs())
		if err != nil {
			return a, badRequest("Invalid edit decision: %v", err)
		}
		a.Approval = &d
	}
	return a, nil
}

// accepted is the answer to a submit that answered its question.
func accepted(q agent.Question, runID, toolID string) SubmitResponse {
	what := "Frontend submit"
	switch q.Kind {
	case agent.AskScope:
		what = "Scope decision"
	case agent.AskApproval:
		what = "Edit decision"
	}
	return SubmitResponse{Accepted: true, Status: SubmitAccepted, RunID: runID, ToolID: toolID,
		Detail: what + " accepted for runId=" + runID + ", toolId=" + toolID}
}
