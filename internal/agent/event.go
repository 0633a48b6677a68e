// Package agent is aite's run loop: one run of an agent is an explicit
// state machine (model turn → tool calls → model turn … → done, canceled,
// error or limit) that streams typed events as they happen. Text and
// reasoning deltas are forwarded one per upstream delta, never merged;
// tool calls of a turn are executed after the turn ends, in model order, and
// each gets exactly one result; every completed message (assistant turn,
// tool result) is announced so callers can persist the run step by step.
// The CLI (`aite ask`, `aite chat`) and the server run the same loop.
package agent

import (
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
)

// EventType names an event of a run.
type EventType string

// The event types.
const (
	RunStart       EventType = "run.start"
	ReasoningDelta EventType = "reasoning.delta"
	ContentDelta   EventType = "content.delta"
	ToolStart      EventType = "tool.start"
	ToolArgs       EventType = "tool.args"
	ToolEnd        EventType = "tool.end"
	ToolProgress   EventType = "tool.progress"
	DocumentEdit   EventType = "document.edit"
	ToolResult     EventType = "tool.result"
	MessageDone    EventType = "message"
	UsageReport    EventType = "usage"
	RunComplete    EventType = "run.complete"
	RunError       EventType = "run.error"
)

// Ending is how a run ended.
type Ending string

// The endings.
const (
	Done     Ending = "done"
	Canceled Ending = "canceled"
	Failed   Ending = "error"
	Limit    Ending = "limit"
)

// Event is one streamed event. Which fields are set depends on Type.
type Event struct {
	Type  EventType `json:"type"`
	RunID string    `json:"runId"`
	// Step is the model turn the event belongs to (1-based).
	Step     int            `json:"step,omitempty"`
	ToolID   string         `json:"toolId,omitempty"`
	ToolName string         `json:"toolName,omitempty"`
	Delta    string         `json:"delta,omitempty"`
	Result   *tool.Result   `json:"result,omitempty"`
	Edit     *tool.Edit     `json:"edit,omitempty"`
	Progress *tool.Progress `json:"progress,omitempty"`
	Message  *llm.Message   `json:"message,omitempty"`
	Usage    *llm.Usage     `json:"usage,omitempty"`
	// Terminal events.
	Ending Ending     `json:"ending,omitempty"`
	Answer string     `json:"answer,omitempty"`
	Error  *ErrorInfo `json:"error,omitempty"`
	// Total usage of the run, on terminal events.
	Total *llm.Usage `json:"total,omitempty"`
	// OutOfSteps is set on the terminal event of a run whose model used
	// all of Config.MaxSteps turns with tools: its answer came from the
	// final turn without tools and the work may be unfinished.
	OutOfSteps bool `json:"outOfSteps,omitempty"`
}

// ErrorInfo describes why a run failed, machine-readably.
type ErrorInfo struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retriable bool   `json:"retriable"`
}

// Error codes of failed runs (PLATFORM_API § 3.5).
const (
	CodeModel         = "model_error"
	CodeBudget        = "budget_exceeded"
	CodeNoFinalAnswer = "no_final_answer"
	CodeInternal      = "internal_error"
	CodeCanceled      = "canceled"
)
