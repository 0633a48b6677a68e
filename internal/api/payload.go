package api

import "encoding/json"

// RequestQuery is the payload of request.query: the query as received
// (params without the internal "__" keys).
type RequestQuery struct {
	RequestID  string                     `json:"requestId"`
	ChatID     string                     `json:"chatId"`
	Role       string                     `json:"role"`
	Message    string                     `json:"message"`
	AgentKey   string                     `json:"agentKey,omitempty"`
	References []Reference                `json:"references,omitempty"`
	Params     map[string]json.RawMessage `json:"params,omitempty"`
	Scene      *Scene                     `json:"scene,omitempty"`
	Stream     *bool                      `json:"stream,omitempty"`
}

// RequestSubmit is the payload of request.submit: a /submit that released a
// frontend tool wait. Payload is the submitted params.
type RequestSubmit struct {
	RequestID string          `json:"requestId"`
	ChatID    string          `json:"chatId"`
	RunID     string          `json:"runId"`
	ToolID    string          `json:"toolId"`
	Payload   json.RawMessage `json:"payload"`
	ViewID    string          `json:"viewId,omitempty"`
}

// ChatStart is the payload of chat.start, sent in a chat's first run only.
type ChatStart struct {
	ChatID         string `json:"chatId"`
	ChatName       string `json:"chatName"`
	ChatImageToken string `json:"chatImageToken,omitempty"`
}

// RunStart is the payload of run.start.
type RunStart struct {
	RunID    string `json:"runId"`
	ChatID   string `json:"chatId"`
	AgentKey string `json:"agentKey"`
}

// RunComplete is the payload of run.complete (FinishStop or FinishTimeout;
// a protocol run stopped by a limit ends with FinishMaxTurns or
// FinishBudget and its Ledger).
type RunComplete struct {
	RunID        string  `json:"runId"`
	FinishReason string  `json:"finishReason"`
	Ledger       *Ledger `json:"ledger,omitempty"`
}

// Ledger says what a protocol run spent when a limit stopped it
// (AGENT_PROTOCOL § 4.8 LM5). The slices are [] when empty, never null.
type Ledger struct {
	Cap          string        `json:"cap"` // maxTurns, modelCalls, toolCalls, deadline
	Turns        int           `json:"turns"`
	ModelCalls   int           `json:"modelCalls"`
	Repairs      int           `json:"repairs"`
	ToolCalls    int           `json:"toolCalls"`
	Tokens       LedgerTokens  `json:"tokens"`
	ElapsedMs    int64         `json:"elapsedMs"`
	PendingCalls []PendingCall `json:"pendingCalls"`
	LastErrors   []string      `json:"lastErrors"`
}

// LedgerTokens counts the tokens a run spent.
type LedgerTokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// PendingCall is a call that was still waiting when a limit stopped a run.
type PendingCall struct {
	ToolID    string   `json:"toolId"`
	Tool      string   `json:"tool"`
	WaitingOn []string `json:"waitingOn"`
}

// Warning is a non-fatal finding about an advisor opinion (weights,
// missing entries …).
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// AdvisorSnapshot is the payload of advisor.snapshot [protocol]: one
// advisor opinion of a turn (AGENT_PROTOCOL § 5.3). Opinion holds the answer
// fields and Weights the parsed votes {tool: 0..100}, both JSON objects in
// the order written; RawCalls is the calls string when it could not be
// parsed. ParentToolID is set for an opinion of a delegate's sub-run.
type AdvisorSnapshot struct {
	RunID        string          `json:"runId"`
	Turn         int             `json:"turn"`
	AdvisorID    string          `json:"advisorId"`
	Instance     string          `json:"instance,omitempty"`
	Opinion      json.RawMessage `json:"opinion"`
	Weights      json.RawMessage `json:"weights"`
	RawCalls     string          `json:"rawCalls,omitempty"`
	Warnings     []Warning       `json:"warnings,omitempty"`
	Consulted    bool            `json:"consulted,omitempty"`
	ParentToolID string          `json:"parentToolId,omitempty"`
}

// ScopePreview is what one requested scope would disclose.
type ScopePreview struct {
	Scope string   `json:"scope"`
	Bytes int      `json:"bytes"`
	Keys  []string `json:"keys"`
}

// ScopeRequest is the payload of scope.request [protocol]: a call asks for
// scopes a person must approve (AGENT_PROTOCOL §§ 5.3, 5.4). The client
// answers through /submit with toolId = ApprovalID. Scopes are the
// requested scopes; TimeoutMs is how long the server waits.
type ScopeRequest struct {
	RunID        string         `json:"runId"`
	ToolID       string         `json:"toolId"`
	ToolName     string         `json:"toolName"`
	Instance     string         `json:"instance,omitempty"`
	ApprovalID   string         `json:"approvalId"`
	Provisioned  []string       `json:"provisioned"`
	Scopes       []string       `json:"scopes"`
	Preview      []ScopePreview `json:"preview"`
	TimeoutMs    int64          `json:"timeoutMs"`
	ParentToolID string         `json:"parentToolId,omitempty"`
}

// ScopeDecision is the payload of scope.decision [protocol]: how requested
// scopes were decided (Decision* constants). Scopes is the effective grant
// (provisioned first, then the approved requested scopes); By is user,
// policy, memory or hook.
type ScopeDecision struct {
	RunID        string   `json:"runId"`
	ToolID       string   `json:"toolId"`
	ApprovalID   string   `json:"approvalId"`
	Decision     string   `json:"decision"`
	Scopes       []string `json:"scopes"`
	Reason       string   `json:"reason,omitempty"`
	By           string   `json:"by"`
	Remember     string   `json:"remember,omitempty"`
	ParentToolID string   `json:"parentToolId,omitempty"`
}

// ApprovalCall is one held call of approval.request: its parameters
// (resolved) and the preview of what it would do (for a book edit
// {pointer, op, oldMarkdown, newMarkdown}; null when the tool has none).
type ApprovalCall struct {
	ToolID     string          `json:"toolId"`
	ToolName   string          `json:"toolName"`
	Instance   string          `json:"instance,omitempty"`
	ToolParams json.RawMessage `json:"toolParams"`
	Preview    json.RawMessage `json:"preview"`
}

// ApprovalRequest is the payload of approval.request [aite extension]: the
// held calls of one drain shown together for confirmation before they run.
// The client answers through /submit with toolId = ApprovalID and params
// {decision: approve|deny|partial, approved: [toolId…], reason?}.
// TimeoutMs is how long the server waits; ParentToolID is set for the
// calls of a delegate's sub-run.
type ApprovalRequest struct {
	RunID        string         `json:"runId"`
	ApprovalID   string         `json:"approvalId"`
	Turn         int            `json:"turn"`
	Calls        []ApprovalCall `json:"calls"`
	TimeoutMs    int64          `json:"timeoutMs"`
	ParentToolID string         `json:"parentToolId,omitempty"`
}

// ApprovalDecision is the payload of approval.decision [aite extension]:
// Decision is approve, deny, partial or timeout; Approved and Denied list
// every call of the request; By is user or policy.
type ApprovalDecision struct {
	RunID        string   `json:"runId"`
	ApprovalID   string   `json:"approvalId"`
	Decision     string   `json:"decision"`
	Approved     []string `json:"approved"`
	Denied       []string `json:"denied"`
	Reason       string   `json:"reason,omitempty"`
	By           string   `json:"by"`
	ParentToolID string   `json:"parentToolId,omitempty"`
}

// ToolProgress is the payload of tool.progress [EXT]: a live report from
// inside a running tool call, between its tool.end and its tool.result (the
// cursor agent reports kind "cursor_agent" after every batch, with data
// {taskId, batch, estimatedBatches, first, last, items, evidence, calls,
// hasMore}). A call may report any number of times; the last report stands.
type ToolProgress struct {
	RunID   string          `json:"runId"`
	ToolID  string          `json:"toolId"`
	Kind    string          `json:"kind"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ErrorInfo says why a run failed (codes of § 3.5). Reason [EXT] tells why a
// run_aborted run was stopped (AbortCanceled, AbortSuperseded, AbortShutdown);
// empty otherwise.
type ErrorInfo struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retriable bool   `json:"retriable"`
	Reason    string `json:"reason,omitempty"`
}

// RunError is the payload of run.error.
type RunError struct {
	RunID string    `json:"runId"`
	Error ErrorInfo `json:"error"`
}

// PlanTask is one task of a plan.
type PlanTask struct {
	TaskID      string `json:"taskId"`
	Description string `json:"description"`
	Status      string `json:"status"`
}

// PlanUpdate is the payload of plan.update: the full task list every time.
type PlanUpdate struct {
	PlanID string     `json:"planId"`
	ChatID string     `json:"chatId"`
	Plan   []PlanTask `json:"plan"`
}

// TaskStart is the payload of task.start.
type TaskStart struct {
	TaskID      string `json:"taskId"`
	RunID       string `json:"runId"`
	TaskName    string `json:"taskName,omitempty"`
	Description string `json:"description,omitempty"`
}

// TaskEnd is the payload of task.complete and task.cancel.
type TaskEnd struct {
	TaskID string `json:"taskId"`
}

// TaskError says why a task failed.
type TaskError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// TaskFail is the payload of task.fail.
type TaskFail struct {
	TaskID string    `json:"taskId"`
	Error  TaskError `json:"error"`
}

// ReasoningStart is the payload of reasoning.start.
type ReasoningStart struct {
	ReasoningID string `json:"reasoningId"`
	RunID       string `json:"runId"`
	TaskID      string `json:"taskId,omitempty"`
}

// ReasoningDelta is the payload of reasoning.delta.
type ReasoningDelta struct {
	ReasoningID string `json:"reasoningId"`
	Delta       string `json:"delta"`
}

// ReasoningEnd is the payload of reasoning.end.
type ReasoningEnd struct {
	ReasoningID string `json:"reasoningId"`
}

// ContentStart is the payload of content.start.
type ContentStart struct {
	ContentID string `json:"contentId"`
	RunID     string `json:"runId"`
	TaskID    string `json:"taskId,omitempty"`
}

// ContentDelta is the payload of content.delta.
type ContentDelta struct {
	ContentID string `json:"contentId"`
	Delta     string `json:"delta"`
}

// ContentEnd is the payload of content.end.
type ContentEnd struct {
	ContentID string `json:"contentId"`
}

// ToolStart is the payload of tool.start. ToolParams is present only when
// the complete arguments were known as the call opened; frontend tools set
// ToolKey (the viewportKey) and ToolTimeout (ms).
type ToolStart struct {
	ToolID      string          `json:"toolId"`
	RunID       string          `json:"runId"`
	TaskID      string          `json:"taskId,omitempty"`
	ToolName    string          `json:"toolName"`
	ToolType    string          `json:"toolType"`
	ToolAPI     string          `json:"toolApi,omitempty"`
	ToolParams  json.RawMessage `json:"toolParams,omitempty"`
	Description string          `json:"description,omitempty"`
	ToolKey     string          `json:"toolKey,omitempty"`
	ToolTimeout int64           `json:"toolTimeout,omitempty"`
}

// ToolArgs is the payload of tool.args: one raw argument fragment.
type ToolArgs struct {
	ToolID     string `json:"toolId"`
	Delta      string `json:"delta"`
	ChunkIndex int    `json:"chunkIndex"`
}

// ToolEnd is the payload of tool.end.
type ToolEnd struct {
	ToolID string `json:"toolId"`
}

// ToolResult is the payload of tool.result; Result is always a string (text
// or serialised JSON such as a ToolError).
type ToolResult struct {
	ToolID string `json:"toolId"`
	Result string `json:"result"`
}

// ToolError is the JSON text of an error tool result (§ 7.1); OK is false.
type ToolError struct {
	Tool  string `json:"tool"`
	OK    bool   `json:"ok"`
	Code  string `json:"code"`
	Error string `json:"error"`
}

// ActionStart is the payload of action.start.
type ActionStart struct {
	ActionID    string `json:"actionId"`
	RunID       string `json:"runId"`
	TaskID      string `json:"taskId,omitempty"`
	ActionName  string `json:"actionName"`
	Description string `json:"description,omitempty"`
}

// ActionArgs is the payload of action.args.
type ActionArgs struct {
	ActionID string `json:"actionId"`
	Delta    string `json:"delta"`
}

// ActionEnd is the payload of action.end.
type ActionEnd struct {
	ActionID string `json:"actionId"`
}

// ActionResult is the payload of action.result: the result text's JSON if
// it parses, else the text as a JSON string (normally "OK").
type ActionResult struct {
	ActionID string          `json:"actionId"`
	Result   json.RawMessage `json:"result"`
}

// DocumentEdit is the payload of document.edit [EXT]: one applied edit
// operation (replace, insert_before, insert_after, delete).
type DocumentEdit struct {
	DocumentID string `json:"documentId"`
	RunID      string `json:"runId"`
	ToolID     string `json:"toolId"`
	TaskID     string `json:"taskId,omitempty"`
	Revision   int    `json:"revision"`
	Op         string `json:"op"`
	Pointer    string `json:"pointer"`
	NewPointer string `json:"newPointer,omitempty"`
	Before     string `json:"before,omitempty"`
	After      string `json:"after,omitempty"`
}

// ReasoningSnapshot is the history-only payload of reasoning.snapshot.
type ReasoningSnapshot struct {
	ReasoningID string `json:"reasoningId"`
	Text        string `json:"text"`
	TaskID      string `json:"taskId,omitempty"`
}

// ContentSnapshot is the history-only payload of content.snapshot.
type ContentSnapshot struct {
	ContentID string `json:"contentId"`
	Text      string `json:"text"`
	TaskID    string `json:"taskId,omitempty"`
}

// ToolSnapshot is the history-only payload of tool.snapshot: Arguments is
// the concatenated raw fragments, ToolParams their parsed form.
type ToolSnapshot struct {
	ToolID      string          `json:"toolId"`
	ToolName    string          `json:"toolName"`
	Arguments   string          `json:"arguments"`
	ToolType    string          `json:"toolType"`
	ToolAPI     string          `json:"toolApi,omitempty"`
	ToolParams  json.RawMessage `json:"toolParams,omitempty"`
	Description string          `json:"description,omitempty"`
	ToolKey     string          `json:"toolKey,omitempty"`
	ToolTimeout int64           `json:"toolTimeout,omitempty"`
	TaskID      string          `json:"taskId,omitempty"`
}

// ActionSnapshot is the history-only payload of action.snapshot.
type ActionSnapshot struct {
	ActionID    string `json:"actionId"`
	ActionName  string `json:"actionName"`
	Arguments   string `json:"arguments"`
	Description string `json:"description,omitempty"`
	TaskID      string `json:"taskId,omitempty"`
}
