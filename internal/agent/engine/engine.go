// Package engine executes one run of a platform agent (PLATFORM_API § 6):
// the modes ONESHOT, REACT and PLAN_EXECUTE with their budgets, toolChoice
// and repair rules, prompt assembly (§ 6.2), chat memory (§ 5.2), the tool
// kinds backend / frontend / action (§§ 4, 7.1) with frontend waits released
// by Submit, the plan tools (§ 6.5) and the skill tool (§ 7.2). It streams
// through an Emitter (the server's assembler) and persists the run's
// messages, system snapshots and plans in the store as they complete.
//
// The engine knows nothing about HTTP or documents: the Go backend tools of a
// run come from Engine.Backends (the server binds the book tools to the
// run's document there and reports applied edits in tool.Result.Edits, with
// Edit.Book = the documentId and Edit.Revision set).
package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/tool"
)

// Spec is one run to execute.
type Spec struct {
	RunID     string
	ChatID    string
	RequestID string
	// Agent is the resolved agent; Defs the definitions snapshot the run
	// started with (tools, skills, viewports are looked up there).
	Agent agentdef.AgentDef
	Defs  *agentdef.Snapshot
	// Message is the user message of the query.
	Message string
	// Params are the query params without the internal "__" keys.
	Params map[string]json.RawMessage
	// DocumentID is the document the run works on ("" when none).
	DocumentID string
	// ContinuePlan is params.continuePlan (PLAN_EXECUTE, § 6.4 step 1).
	ContinuePlan bool
	// Subject is the JWT subject of the request ("" without auth).
	Subject string
	// References are the query's references (a protocol agent's input
	// carries them).
	References []api.Reference
}

// CallKind is the kind of a tool call as the stream shows it.
type CallKind string

// The call kinds.
const (
	CallBackend  CallKind = "backend"  // tool.* events, toolType function
	CallFrontend CallKind = "frontend" // tool.* events, toolType html|qlc, toolKey, toolTimeout
	CallAction   CallKind = "action"   // action.* events
	CallUnknown  CallKind = "unknown"  // not enabled / unknown name: tool.* events, toolType function
)

// Call describes a tool call when its name becomes known (tool.start /
// action.start).
type Call struct {
	ID          string
	Name        string
	Kind        CallKind
	ToolType    string          // function, html or qlc (api.ToolType*)
	ToolAPI     string          // optional
	ToolParams  json.RawMessage // complete arguments if already known at start, else nil
	Description string          // optional
	ToolKey     string          // frontend: the viewport key
	ToolTimeout int64           // frontend: ms
}

// Emitter receives a run's stream. The server's Assembler implements it and
// enforces § 3.3 (one open text block, block ids, taskId on start events
// while a task is active, tool.end exactly once, one result per call,
// closing everything before a terminal event).
type Emitter interface {
	// Reasoning and Content stream one upstream text delta each.
	Reasoning(delta string)
	Content(delta string)
	// CallStart opens a tool or action call; CallArgs streams one raw
	// argument fragment; CallEnd ends it (idempotent).
	CallStart(c Call)
	CallArgs(id, delta string)
	CallEnd(id string)
	// TurnEnd marks the end of a model turn: the open block closes and
	// every open call ends.
	TurnEnd()
	// Submit is request.submit for a released frontend wait.
	Submit(toolID string, payload json.RawMessage)
	// DocumentEdit is document.edit for one applied edit of call toolID.
	DocumentEdit(toolID string, e tool.Edit)
	// ToolProgress is tool.progress: a report from inside the running call
	// toolID, before its result.
	ToolProgress(toolID string, p tool.Progress)
	// ToolResult is tool.result (the § 7.1 string); ActionResult is
	// action.result (the result text; JSON when it parses).
	ToolResult(id, result string)
	ActionResult(id, result string)
	// PlanUpdate is plan.update with the full task list.
	PlanUpdate(planID string, tasks []api.PlanTask)
	// TaskStart, TaskComplete, TaskCancel and TaskFail are the task events
	// (PLAN_EXECUTE only).
	TaskStart(taskID, description string)
	TaskComplete(taskID string)
	TaskCancel(taskID string)
	TaskFail(taskID string, e api.TaskError)
	// AdvisorSnapshot is advisor.snapshot (protocol agents): before the
	// turn's first tool.start, or for a consulted advisor before the
	// ConsultAdvisor call's result.
	AdvisorSnapshot(p api.AdvisorSnapshot)
	// ScopeRequest is scope.request: after the call's tool.end, before its
	// result. ScopeDecision is scope.decision: after the request.submit of a
	// user decision, before the call's result. For the events of a
	// delegate's sub-run, ParentToolID names the parent call.
	ScopeRequest(p api.ScopeRequest)
	ScopeDecision(p api.ScopeDecision)
	// ApprovalRequest is approval.request (edit approval): the held calls,
	// after their tool.end, before their results. ApprovalDecision is
	// approval.decision: after the request.submit of a user decision,
	// before the calls' results.
	ApprovalRequest(p api.ApprovalRequest)
	ApprovalDecision(p api.ApprovalDecision)
	// Complete and Fail are the terminal events; CompleteLedger is
	// run.complete with the ledger of a protocol run stopped by a limit.
	Complete(finishReason string)
	CompleteLedger(finishReason string, ledger *api.Ledger)
	Fail(info api.ErrorInfo)
	// Ended reports whether a terminal event was emitted.
	Ended() bool
}

// ModelSource resolves a modelKey to a provider and its model.
type ModelSource interface {
	Provider(modelKey string) (llm.Provider, models.Model, error)
}

// Engine executes runs. Its fields are set once before the first run; it is
// safe for concurrent runs.
type Engine struct {
	Store  store.Store
	Models ModelSource
	// Backends returns the Go backend tools of a run by lowercase name
	// (the book tools bound to spec.DocumentID, demo tools …). The engine
	// adds its own built-ins (plan tools, _skill_run_script_).
	Backends func(ctx context.Context, spec Spec) (map[string]tool.Tool, error)
	// MemoryK is memory.k (default 20).
	MemoryK int
	// FrontendTimeout is tools.frontendSubmitTimeoutMs (default 300 s).
	FrontendTimeout time.Duration
	// Clock stamps stored messages and plans (default time.Now).
	Clock func() time.Time
	// Logger receives the run's diagnostics (default: discarded).
	Logger *slog.Logger
	// ContextProviders resolve the `provider` entries of a protocol
	// agent's protocol.context by name (AGENT_PROTOCOL § 5.1).
	ContextProviders map[string]ContextProvider
	// Activities returns the native protocol activities of a run by
	// lowercase name (AGENT_PROTOCOL § 4.5); they win over Backends of the
	// same name and run with the budget.tool timeout. edit reports an
	// applied document edit of call toolID: the engine streams it as
	// document.edit. Optional.
	Activities func(ctx context.Context, spec Spec, edit func(toolID string, e tool.Edit)) (map[string]protocol.Activity, error)
	// AllowInlineCode is skills.allowInlineCode: code sent in
	// _skill_run_script_'s pythonCode runs for skills that declare
	// inlineCode (default false: only the scripts shipped with a skill).
	AllowInlineCode bool
	// MaxRetryWait is the longest provider Retry-After the engine waits
	// before its one reconnect (default DefaultMaxRetryWait); a longer one
	// ends the model call at once and the run.error says so.
	MaxRetryWait time.Duration
	// Sleep waits before a reconnect (default: a timer that stops when ctx
	// is done); tests inject a fake.
	Sleep func(ctx context.Context, d time.Duration) error

	waits waits // pending frontend waits (runId#toolId)
}

type callKey struct{}

// WithCall returns ctx carrying the tool call id a backend tool runs for;
// the engine sets it before calling a backend tool.
func WithCall(ctx context.Context, toolID string) context.Context {
	return context.WithValue(ctx, callKey{}, toolID)
}

// CallID returns the tool call id of ctx ("" outside a call).
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callKey{}).(string)
	return id
}
