package agent

import (
	"encoding/json"
	"time"

	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
)

// EventType names an event of a run. The set is closed: a consumer that
// handles these handles everything a run can say.
type EventType string

// The event types, in the order a run typically produces them.
const (
	// ReasoningDelta and ContentDelta carry one upstream text delta each
	// (Delta), never merged or buffered.
	ReasoningDelta EventType = "reasoning.delta"
	ContentDelta   EventType = "content.delta"
	// TurnEnd ends a model turn (or the output block of a protocol run):
	// its text block is over and every call it opened has ended.
	TurnEnd EventType = "turn.end"
	// ToolStart opens a call (Call); ToolArgs streams one raw argument
	// fragment (ToolID, Delta); ToolEnd ends it (ToolID), at most once.
	ToolStart EventType = "tool.start"
	ToolArgs  EventType = "tool.args"
	ToolEnd   EventType = "tool.end"
	// ToolProgress is a report from inside a running call (ToolID,
	// Progress), before its result.
	ToolProgress EventType = "tool.progress"
	// Submitted is a person's answer to what the run asked (a frontend
	// call, a scope or an edit approval): ToolID names the question (the
	// call id, "scope:<call id>" or the approval id) and Answer holds the
	// answer as it was submitted.
	Submitted EventType = "request.submit"
	// DocumentEdit is one edit a call applied (ToolID, Edit).
	DocumentEdit EventType = "document.edit"
	// ToolResult is the one result of a call (ToolID, Result).
	ToolResult EventType = "tool.result"
	// PlanUpdate is the whole plan after a change (Plan).
	PlanUpdate EventType = "plan.update"
	// TaskStart and TaskEnd frame the execution of a plan task (Task).
	TaskStart EventType = "task.start"
	TaskEnd   EventType = "task.end"
	// AdvisorSnapshot is one advisor opinion of a protocol run (Turn,
	// Opinion, ParentToolID for a delegate's sub-run).
	AdvisorSnapshot EventType = "advisor.snapshot"
	// ScopeRequest asks a person to grant scopes to a call (Scope);
	// ScopeDecision says how they were decided (ToolID, ScopeDecision).
	ScopeRequest  EventType = "scope.request"
	ScopeDecision EventType = "scope.decision"
	// ApprovalRequest asks a person to approve held edit calls (Approval);
	// ApprovalDecision says how they were decided (Approval, Decision).
	ApprovalRequest  EventType = "approval.request"
	ApprovalDecision EventType = "approval.decision"
	// RunComplete and RunError end the run (End); nothing follows them.
	RunComplete EventType = "run.complete"
	RunError    EventType = "run.error"
)

// Event is one event of a run. Which fields are set depends on Type.
type Event struct {
	Type EventType
	// ToolID names the call (or the question) the event belongs to.
	ToolID string
	// ParentToolID names the delegate call whose sub-run the event comes
	// from (advisor, scope and approval events of sub-runs).
	ParentToolID string
	// Turn is the model turn of an advisor opinion.
	Turn     int
	Delta    string
	Call     *Call
	Result   *Result
	Edit     *tool.Edit
	Progress *tool.Progress
	Answer   json.RawMessage
	Plan     *Plan
	Task     *Task
	Opinion  *protocol.Opinion
	Scope    *protocol.ScopeRequest
	// ScopeDecision is the effective grant of a scope decision.
	ScopeDecision *protocol.ScopeDecision
	Approval      *Approval
	// Decision is the decision of an approval (every call listed as
	// approved or denied).
	Decision *protocol.ConfirmDecision
	End      *End
}

// The tool types of a call (Call.ToolType).
const (
	ToolTypeFunction = "function"
	ToolTypeHTML     = "html"
	ToolTypeQLC      = "qlc"
	ToolTypeLatent   = protocol.ToolTypeLatent
	ToolTypeDelegate = protocol.ToolTypeDelegate
)

// Result is the one result of a call: Text is what the model reads and
// what the stream shows (the tool's text, or for a failed call the JSON
// {"tool","ok":false,"code","error"}); Error is set for a failed call.
type Result struct {
	Text  string
	Error *ToolError
}

// ToolError is why a call failed.
type ToolError struct {
	Code    string
	Message string
}

// Plan is a PLAN_EXECUTE plan: its id and the whole task list.
type Plan struct {
	ID    string
	Tasks []PlanTask
}

// PlanTask is one task of a plan (stored as JSON with these keys).
type PlanTask struct {
	TaskID      string `json:"taskId"`
	Description string `json:"description"`
	Status      string `json:"status"`
}

// Task is a plan task starting (Description) or ending (Status completed,
// canceled or failed, with Error for a failure).
type Task struct {
	ID          string
	Description string
	Status      string
	Error       *ErrorInfo
}

// Approval is a request to approve held calls before they run (edit
// approval): ID is the approval id a person answers under ("calls:" + the
// first call's id).
type Approval struct {
	ID           string
	Turn         int
	Calls        []ApprovalCall
	Timeout      time.Duration
	ParentToolID string
}

// ToolIDs lists the tool ids of the held calls in request order.
func (a *Approval) ToolIDs() []string {
	ids := make([]string, len(a.Calls))
	for i, c := range a.Calls {
		ids[i] = c.ToolID
	}
	return ids
}

// ApprovalCall is one held call: its parameters (resolved) and the preview
// of what it would do, both JSON (Preview empty when the tool has none).
type ApprovalCall struct {
	ToolID, ToolName, Instance string
	Params, Preview            json.RawMessage
}

// End is how a run ended. A complete run has a FinishReason (and, when a
// limit of a protocol run stopped it, a Ledger); a failed one has Error.
type End struct {
	FinishReason string
	Ledger       *protocol.Ledger
	Error        *ErrorInfo
	// Answer is the run's answer: the text of its last model turn (for a
	// protocol run, its output text).
	Answer string
	// OutOfSteps reports that a REACT run used all its steps with tools:
	// the answer came from the final turn without tools and the work may
	// be unfinished.
	OutOfSteps bool
	// Usage sums the model usage of the run.
	Usage llm.Usage
}

// ErrorInfo says machine-readably why a run (or a task) failed.
type ErrorInfo struct {
	Code      string
	Message   string
	Retriable bool
}

// The finish reasons of a complete run.
const (
	FinishStop     = "stop"
	FinishTimeout  = "timeout"
	FinishMaxTurns = protocol.FinishMaxTurns
	FinishBudget   = protocol.FinishBudget
)

// The task statuses (§ 6.4).
const (
	TaskInit      = "init"
	TaskCompleted = "completed"
	TaskFailed    = "failed"
	TaskCanceled  = "canceled"
)

// The error codes of a failed run (PLATFORM_API § 3.5).
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

// The error codes of a failed call (PLATFORM_API § 7.1).
const (
	ToolCodeInvalidArguments      = "invalid_arguments"
	ToolCodeTimeout               = "tool_timeout"
	ToolCodeFailed                = "tool_failed"
	ToolCodeNotEnabled            = "tool_not_enabled"
	ToolCodeSkipped               = "skipped"
	ToolCodeFrontendSubmitTimeout = "frontend_submit_timeout"
)

// ScopeApprovalPrefix prefixes the question id of a scope approval:
// "scope:" + the call id.
const ScopeApprovalPrefix = "scope:"
