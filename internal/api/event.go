package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aitexteditor/aite/internal/jsontext"
)

// The event types of § 3.2.
const (
	TypeRequestQuery  = "request.query"
	TypeRequestSubmit = "request.submit"
	TypeChatStart     = "chat.start"
	TypeRunStart      = "run.start"
	TypeRunComplete   = "run.complete"
	TypeRunError      = "run.error"
	TypePlanUpdate    = "plan.update"
	TypeTaskStart     = "task.start"
	TypeTaskComplete  = "task.complete"
	TypeTaskCancel    = "task.cancel"
	TypeTaskFail      = "task.fail"

	TypeReasoningStart = "reasoning.start"
	TypeReasoningDelta = "reasoning.delta"
	TypeReasoningEnd   = "reasoning.end"
	TypeContentStart   = "content.start"
	TypeContentDelta   = "content.delta"
	TypeContentEnd     = "content.end"

	TypeToolStart    = "tool.start"
	TypeToolArgs     = "tool.args"
	TypeToolEnd      = "tool.end"
	TypeToolResult   = "tool.result"
	TypeActionStart  = "action.start"
	TypeActionArgs   = "action.args"
	TypeActionEnd    = "action.end"
	TypeActionResult = "action.result"
	TypeDocumentEdit = "document.edit" // [EXT]
	TypeToolProgress = "tool.progress" // [EXT] a live report from inside a long tool call

	// Protocol agents (AGENT_PROTOCOL § 5.3).
	TypeAdvisorSnapshot = "advisor.snapshot"
	TypeScopeRequest    = "scope.request"
	TypeScopeDecision   = "scope.decision"
	// Edit approval (aite extension): held calls shown for confirmation.
	TypeApprovalRequest  = "approval.request"
	TypeApprovalDecision = "approval.decision"

	// History only (§ 5.3).
	TypeReasoningSnapshot = "reasoning.snapshot"
	TypeContentSnapshot   = "content.snapshot"
	TypeToolSnapshot      = "tool.snapshot"
	TypeActionSnapshot    = "action.snapshot"
)

// The finish reasons of run.complete. FinishMaxTurns and FinishBudget end
// protocol runs stopped by a limit; they come with a Ledger (AGENT_PROTOCOL
// § 4.8 LM5).
const (
	FinishStop     = "stop"
	FinishTimeout  = "timeout"
	FinishMaxTurns = "max_turns"
	FinishBudget   = "budget"
)

// The toolType values of tool.start and tool.snapshot.
const (
	ToolTypeFunction = "function"
	ToolTypeHTML     = "html"
	ToolTypeQLC      = "qlc"
	// Protocol agents (AGENT_PROTOCOL § 5.3): a call the model answers
	// itself / a call run as a sub-run of another agent.
	ToolTypeLatent   = "latent"
	ToolTypeDelegate = "delegate"
)

// The decisions of scope.decision (AGENT_PROTOCOL § 4.4); a client posts one
// of the first three, DecisionTimeout is the server's.
const (
	DecisionApprove = "approve"
	DecisionDeny    = "deny"
	DecisionNarrow  = "narrow"
	DecisionTimeout = "timeout"
)

// DecisionPartial is the approval.decision of a confirmation that approved
// some of its calls only (the others are DecisionApprove, DecisionDeny and
// DecisionTimeout).
const DecisionPartial = "partial"

// CallApprovalPrefix prefixes the approvalId of an edit approval
// (approval.request): "calls:" + the tool id of its first call. A client
// posts its decision to /submit with toolId = approvalId.
const CallApprovalPrefix = "calls:"

// ScopeApprovalPrefix prefixes the toolId of a scope decision posted to
// /submit: "scope:" + the call's toolId (AGENT_PROTOCOL § 5.4).
const ScopeApprovalPrefix = "scope:"

// The error codes of run.error (§ 3.5).
const (
	CodeModelError       = "model_error"
	CodeBudgetExceeded   = "budget_exceeded"
	CodeRunTimeout       = "run_timeout"
	CodeToolCallRequired = "tool_call_required"
	CodeNoFinalAnswer    = "no_final_answer"
	CodePlanNotCreated   = "plan_not_created"
	CodePlanStalled      = "plan_stalled"
	CodeTaskFailed       = "task_failed"
	CodeRunAborted       = "run_aborted"
	CodeInternalError    = "internal_error"
)

// The reasons of a run_aborted run.error [EXT] (ErrorInfo.Reason).
const (
	AbortCanceled   = "canceled"   // POST /run/cancel
	AbortSuperseded = "superseded" // a new /query in the chat while no client followed the run
	AbortShutdown   = "shutdown"   // the server stopped (gracefully, or run_aborted at the next start)
)

// The error codes of an error tool result (§ 7.1).
const (
	ToolCodeInvalidArguments      = "invalid_arguments"
	ToolCodeTimeout               = "tool_timeout"
	ToolCodeFailed                = "tool_failed"
	ToolCodeNotEnabled            = "tool_not_enabled"
	ToolCodeSkipped               = "skipped"
	ToolCodeFrontendSubmitTimeout = "frontend_submit_timeout"
)

// Event is one SSE event: the three common fields and a payload, one of the
// payload structs of this package (or nil). It encodes as one JSON object
// whose first keys are seq, type and timestamp, followed by the payload's
// fields (§ 3.1).
type Event struct {
	Seq       int64  // per-run ordinal from 1; also the SSE id
	Type      string // one of the Type constants
	Timestamp int64  // epoch milliseconds
	Payload   any    // must encode as a JSON object
	// Encoded is the event's JSON once it was encoded (the bytes the run
	// manager stored): MarshalJSON returns it as it is, so a live event is
	// encoded once however many clients it is sent to. Nil until then;
	// whoever changes another field of an encoded event clears it.
	Encoded []byte
}

// MarshalJSON writes {"seq":…,"type":…,"timestamp":…,<payload fields>} on
// one line without HTML escaping. Call it directly to keep that property:
// json.Marshal re-escapes <, > and & in a Marshaler's output. An event
// with Encoded returns those bytes.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Encoded != nil {
		return e.Encoded, nil
	}
	var payload []byte
	var id, delta, idKey string
	switch p := e.Payload.(type) {
	case nil:
	case ContentDelta: // the events of every delta: written directly
		idKey, id, delta = `"contentId":`, p.ContentID, p.Delta
	case ReasoningDelta:
		idKey, id, delta = `"reasoningId":`, p.ReasoningID, p.Delta
	default:
		var err error
		if payload, err = Encode(e.Payload); err != nil {
			return nil, fmt.Errorf("api: %s payload: %w", e.Type, err)
		}
		if len(payload) < 2 || payload[0] != '{' {
			return nil, fmt.Errorf("api: %s payload is not a JSON object", e.Type)
		}
	}
	b := make([]byte, 0, 128+len(e.Type)+len(payload)+len(id)+len(delta))
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"type":`...)
	b = jsontext.AppendString(b, e.Type)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, e.Timestamp, 10)
	switch {
	case idKey != "":
		b = append(b, ',')
		b = append(b, idKey...)
		b = jsontext.AppendString(b, id)
		b = append(b, `,"delta":`...)
		b = jsontext.AppendString(b, delta)
		return append(b, '}'), nil
	case len(payload) > 2: // not "{}"
		b = append(b, ',')
		b = append(b, payload[1:]...)
		return b, nil
	}
	return append(b, '}'), nil
}

// Encode marshals v compactly without HTML escaping and without a trailing
// newline, as every JSON body of the API is written (§ 3.1).
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
