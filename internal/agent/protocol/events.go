package protocol

import (
	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
)

// EventType names a runtime event. The server maps them onto its SSE model
// (§5.3); tests record them.
type EventType string

// The runtime events.
const (
	// EvRunStart: a run or sub-run starts; Context is its initial message
	// array (base, scoped, input) before folding and before the rules text.
	EvRunStart EventType = "run.start"
	// EvTurnStart: a turn starts (stage react-step-N / oneshot); Turn.
	EvTurnStart EventType = "turn.start"
	// EvReasoning: a reasoning delta of the model; Text.
	EvReasoning EventType = "reasoning.delta"
	// EvToolStart: one call enters the stream (tool.start → tool.args →
	// tool.end on the wire); ToolID, ToolName, ToolType, Instance, Params,
	// Description (the call's reasoning).
	EvToolStart EventType = "tool.start"
	// EvToolResult: a call completed or failed; ToolID, Result, OK, Code.
	EvToolResult EventType = "tool.result"
	// EvAdvisorSnapshot: one opinion; Opinion, Tallies of the turn.
	EvAdvisorSnapshot EventType = "advisor.snapshot"
	// EvScopeRequest / EvScopeDecision: the approval of requested scopes.
	EvScopeRequest  EventType = "scope.request"
	EvScopeDecision EventType = "scope.decision"
	// EvConfirmRequest / EvConfirmDecision: the confirmation of held calls
	// (aite extension, see Confirmer); Confirm is the request, Confirmed the
	// decision (with Confirm set too).
	EvConfirmRequest  EventType = "confirm.request"
	EvConfirmDecision EventType = "confirm.decision"
	// EvOutput: the run's output; Text is the outputText field (or the
	// compact JSON of the output), Output the value.
	EvOutput EventType = "output"
	// EvStep: one model request with its reply (chat memory § 5.5); Step.
	EvStep EventType = "step"
	// EvContext: the messages appended during one turn (chat memory § 5.5).
	EvContext EventType = "context"
	// EvComplete: the run ended; FinishReason, Ledger (nil unless a limit
	// stopped it).
	EvComplete EventType = "run.complete"
)

// Tool types of EvToolStart (§5.3).
const (
	ToolTypeFunction = "function"
	ToolTypeLatent   = "latent"
	ToolTypeDelegate = "delegate"
)

// Event is one runtime event. Which fields are set depends on Type.
// Events of a sub-run carry the parent's tool id in ParentToolID and its
// depth in Depth (0 = the top run).
type Event struct {
	Type         EventType
	RunID        string
	ParentToolID string
	Depth        int
	Turn         int

	ToolID      string
	ToolName    string
	ToolType    string
	FileKind    string
	Instance    string
	Params      *agentctx.Object
	Description string
	Result      string
	OK          bool
	Code        Code

	Opinion  *Opinion
	Tallies  []Tally
	Request  *ScopeRequest
	Decision *ScopeDecision

	Confirm   *CallConfirmation
	Confirmed *ConfirmDecision

	Text         string
	Output       any
	FinishReason string
	Ledger       *Ledger
	Step         *Step
	Context      agentctx.Context
}

// Step is one model request and its reply, for chat memory (§5.5).
type Step struct {
	Turn         int
	Repair       int    // 0 = first attempt
	Stage        string // "react", "oneshot", "delegate"
	ParentToolID string
	Request      *llm.Request
	Reply        llm.Message // raw content, or the respond call
	Solution     any         // normalised solution, nil when unparsable
	Warnings     []Warning
	Tallies      []Tally
	Usage        llm.Usage
}
