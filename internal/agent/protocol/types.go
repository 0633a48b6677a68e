package protocol

import (
	"context"
	"encoding/json"
	"time"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
)

// Code is a protocol error or warning code (§4.9); the context model's codes
// are reused as they are.
type Code = agentctx.Code

// Error codes of §4.9 beyond those of agentctx, and warning codes of §3.
const (
	CodeSolutionUnparsable    Code = "solution_unparsable"
	CodeSolutionInvalid       Code = "solution_invalid"
	CodeCallInvalid           Code = "call_invalid"
	CodeUnknownTool           Code = "unknown_tool"
	CodeMetaConstMismatch     Code = "meta_const_mismatch"
	CodeInstanceUnknown       Code = "instance_unknown"
	CodeScopeNotAllowed       Code = "scope_not_allowed"
	CodeLatentWithoutOutput   Code = "latent_without_output"
	CodeEmptySolution         Code = "empty_solution"
	CodeAdvisorMissing        Code = "advisor_missing" // repair reason: a required advisor entry is absent
	CodeGuardDenied           Code = "guard_denied"
	CodeScopeDenied           Code = "scope_denied"
	CodeScopeNarrowInvalid    Code = "scope_narrow_invalid"
	CodeApprovalFailed        Code = "approval_failed"
	CodeCallDenied            Code = "call_denied" // aite extension: a confirmation was refused (see Confirmer)
	CodeActivityFailed        Code = "activity_failed"
	CodeActivityTimeout       Code = "activity_timeout"
	CodeDelegateNoResult      Code = "delegate_no_result"
	CodeDelegateDepth         Code = "delegate_depth"
	CodeDelegateFailed        Code = "delegate_failed"
	CodeUnresolvedReference   Code = agentctx.CodeUnresolvedReference
	CodePathNotWritable       Code = agentctx.CodePathNotWritable
	CodeMethodUnsupported     Code = agentctx.CodeMethodUnsupported
	CodeExpressionUnsupported Code = agentctx.CodeExpressionUnsupported

	WarnAdvisorUnknown    Code = "advisor_unknown"
	WarnAdvisorDuplicate  Code = "advisor_duplicate"
	WarnAdvisorMissing    Code = "advisor_missing" // required entry still absent after the repair retries
	WarnWeightsNotString  Code = "advisor_weights_not_string"
	WarnWeightsLenient    Code = "advisor_weights_lenient"
	WarnWeightClamped     Code = "advisor_weight_clamped"
	WarnWeightDropped     Code = "advisor_weight_dropped"
	WarnWeightUnknownTool Code = "advisor_weight_unknown_tool"
	WarnWeightsUnparsable Code = "advisor_weights_unparsable"
	WarnExtraRespondCalls Code = "respond_extra_calls"
	WarnGuard             Code = "guard_warning"
	WarnToolChoiceIgnored Code = "tool_choice_ignored"
)

// Warning is a non-fatal finding (weights, advisors, extraction).
type Warning struct {
	Code    Code   `json:"code"`
	Message string `json:"message,omitempty"`
}

// ExecKind is how a call is executed (§1.4).
type ExecKind string

// The execution kinds.
const (
	KindLatent    ExecKind = "latent"
	KindExplicit  ExecKind = "explicit"
	KindDelegated ExecKind = "delegated"
)

// Anonymous is the `_delegate` value of an anonymous sub-run (DG4).
const Anonymous = "anonymous"

// ConsultAdvisor is the built-in tool that consults an on-demand advisor.
const ConsultAdvisor = "ConsultAdvisor"

// Response formats (§2.6).
const (
	FormatAuto        = "auto"
	FormatJSONSchema  = "json_schema"
	FormatRespondTool = "respond_tool"
	FormatPrompt      = "prompt"
)

// DefaultReasoningField is the primary name of the per-call reasoning field.
const DefaultReasoningField = "_reasoningForCall"

// ToolDecl is one tool as declared: a tool file entry or a `tool` context
// message. Parameters is the ordered JSON Schema object (see agentctx.Decode)
// holding parameters and meta-properties.
type ToolDecl struct {
	Name        string
	Description string
	Parameters  *agentctx.Object
	// FileKind is the tool file suffix it came from: "backend", "frontend",
	// "action", "latent", "delegate", or "" for a context `tool` message.
	FileKind string
}

// Limits are the loop limits and budgets of a protocol agent (§4.6, §4.7,
// §4.8). Zero values take the defaults of Agent.Normalize.
type Limits struct {
	MaxTurns         int
	MaxParallel      int
	MaxDelegateDepth int
	MaxModelCalls    int           // 0 = unlimited
	MaxToolCalls     int           // 0 = unlimited
	RunTimeout       time.Duration // 0 = none
}

// Approval is the approval policy of requested scopes (§4.4 AP3, AP6) and,
// as an aite extension, of the calls of Agent.ConfirmTools (see Confirmer).
type Approval struct {
	RequestedScopes string        // "ask" (default), "auto", "deny"
	Timeout         time.Duration // default 300 s; also bounds a call confirmation
	// Calls is the confirmation policy of the calls of Agent.ConfirmTools:
	// CallsAsk (the default) holds them for the Confirmer, CallsAuto runs
	// them without confirmation.
	Calls string
}

// GuardConfig is the built-in minMeanWeight guard policy (§3.2).
type GuardConfig struct {
	MinMeanWeight      float64
	Tools              []string // empty = all tools
	OnNoVotes          string   // "allow" (default) or "deny"
	DisagreementSpread float64  // default 50
}

// ModelInfo is what the runtime needs to know about the model (§2.6, W4).
type ModelInfo struct {
	Key              string
	StructuredOutput string   // "json_schema", "tool" or "" (neither)
	SupportsTools    bool     // isFunction
	DroppedKeywords  []string // schema keywords the provider rejects (W4); nil = the default list
}

// Agent is a protocol agent: an agent definition with a `protocol` block
// (§5.1), as the runtime uses it. Build it, then call Normalize.
type Agent struct {
	Key          string
	SystemPrompt string
	Tools        []ToolDecl         // in declaration order
	Advisors     []agentctx.Message // advisor messages as declared, folded at composition
	Context      agentctx.Context   // protocol.context messages (providers already resolved)
	OutputSchema any                // ordered JSON Schema; nil = any object
	InputSchema  any                // ordered JSON Schema; nil = none
	OutputText   string             // string field of output streamed as content
	Oneshot      bool               // ONESHOT agent (LM2)

	Limits          Limits
	ResponseFormat  string // FormatAuto (default), FormatJSONSchema, FormatRespondTool, FormatPrompt
	ReasoningField  string // default DefaultReasoningField (or its alias "_why")
	ReasoningOff    bool   // protocol.reasoningField:"" — no reasoning property
	RepairRetries   int    // default 1; -1 means 0 after Normalize
	ErrorWindow     int    // default 20
	UnpathedResults string // "log" (default) or "drop"
	Approval        Approval
	// ConfirmTools names the explicit and delegated tools whose calls are
	// confirmed before they run (aite extension, see Confirmer), under
	// Approval.Calls.
	ConfirmTools []string
	Guard        *GuardConfig // nil = no built-in guard
	Model        ModelInfo

	cache *composeCache // set by Normalize; shared by copies of the agent
}

// Tool is a tool resolved for one composition: its execution kind, its
// meta-properties and its call variant (§1.4, §2.3).
type Tool struct {
	Name        string
	Description string
	Kind        ExecKind
	Activity    string // explicit: the activity to run (the tool name or `_activity`)
	Delegate    string // delegated: agent key or Anonymous
	FileKind    string // from ToolDecl ("frontend", "action" … or "")

	Params   *agentctx.Object // parameter properties (no `_` keys), declared order
	Required []string         // required parameters as declared

	Provisioned []string // provisioned scopes (const, or the requested form's `provisioned`)
	Requested   []string // enum of requestable scopes; nil = none requestable
	HasScopes   bool     // `_scopes` declared at all

	OutputPath    string            // prescribed path ("" = none)
	PathChosen    bool              // the model may choose `_outputPath`
	PathSchema    *agentctx.Object  // the declared `_outputPath` schema when model-chosen
	OutputMethod  agentctx.Method   // const method ("" = set unless MethodChoices)
	MethodChoices []agentctx.Method // enum of methods the model may choose
	Output        any               // `_output` schema (latent tools)
	HasOutput     bool

	Declared *agentctx.Object // the full declared parameters schema

	// Variant is the call variant in validation form (original keywords);
	// Wire is its strict wire form (§2.2 W1–W4). Both start with _tool.
	Variant *agentctx.Object
	Wire    *agentctx.Object
}

// Activation is an advisor's state in one turn (§2.4).
type Activation string

// The activations.
const (
	Required Activation = "required"
	Offered  Activation = "offered"
	Absent   Activation = "absent"
)

// ActiveAdvisor is a folded advisor with its activation in this turn.
type ActiveAdvisor struct {
	agentctx.Advisor
	Activation Activation
	// RequiredOnOutput: a `finish` advisor, required when output is not null
	// (checked after parsing).
	RequiredOnOutput bool
	Variant          *agentctx.Object // entry variant, validation form
	Wire             *agentctx.Object // entry variant, wire form
}

// TurnInfo says which turn is being composed.
type TurnInfo struct {
	Turn        int  // 1-based within the run
	MaxTurns    int  // LM2
	Final       bool // LM4: no calls, non-nullable output, finish advisors required
	FirstOfChat bool // the model has not answered yet in this chat (§2.4)
	// RunStart is the number of context messages present when the run started;
	// later messages were appended during the run (tiers, §2.5).
	RunStart int
	// Notes are derived-tier notes: the limit notice, the repair note.
	Notes []string
}

// Composition is one composed turn: tools, advisors, instances and schemas.
type Composition struct {
	Agent     *Agent
	Turn      TurnInfo
	Tools     []*Tool // fold order; ConsultAdvisor last when present
	Advisors  []*ActiveAdvisor
	Instances []string

	Wire       *agentctx.Object // the wire solution schema
	WireJSON   []byte           // its bytes (what goes to the provider)
	Validation *agentctx.Object // the validation solution schema
	Format     string           // the resolved response format (never FormatAuto)
	Warnings   []Warning
}

// Tool returns the composed tool of that name.
func (c *Composition) Tool(name string) *Tool {
	for _, t := range c.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Advisor returns the active advisor of that id.
func (c *Composition) Advisor(id string) *ActiveAdvisor {
	for _, a := range c.Advisors {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// Call is one parsed call of a solution (§1.5), meta-properties separated
// from parameters, consts injected.
type Call struct {
	Index        int // position in the solution's calls, 0-based
	Tool         string
	Reasoning    string
	Instance     string           // "" = global
	Scopes       []string         // requested scopes chosen by the model
	Args         *agentctx.Object // parameters only, declared order
	OutputPath   string           // effective path ("" = none)
	OutputMethod agentctx.Method  // effective method ("" = set)
	Output       any              // latent result
	HasOutput    bool

	Turn   int
	ToolID string // assigned by the runtime
}

// Weight is one advisor vote for a tool.
type Weight struct {
	Tool  string  `json:"tool"`
	Value float64 `json:"value"`
}

// Opinion is one advisor entry of a solution or a consultation.
type Opinion struct {
	ID        string
	Instance  string
	Answer    *agentctx.Object // answer fields in declared order
	Weights   []Weight         // parsed, in the order written
	RawCalls  string           // the `calls` string as received when it could not be parsed
	Warnings  []Warning
	Consulted bool
}

// Tally is the per-tool statistics of one turn's opinions (§3.2).
type Tally struct {
	Tool     string  `json:"tool"`
	N        int     `json:"n"`
	Mean     float64 `json:"mean"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	Spread   float64 `json:"spread"`
	Disagree bool    `json:"disagree"`
}

// CallError is a problem with one call: it is not dispatched and the error is
// fed back (§3 steps 4–5, §4.9).
type CallError struct {
	Index    int
	Tool     string
	Instance string
	Code     Code
	Message  string
	Details  any
}

// Solution is a parsed solution.
type Solution struct {
	Opinions  []Opinion
	Calls     []*Call // valid calls only, in index order
	Output    any     // the output value when not null
	HasOutput bool
	// Normalised is the solution after alias and null normalisation (stored
	// as `_solution` in chat memory).
	Normalised any
}

// ParseResult is the outcome of parsing one reply (§3).
type ParseResult struct {
	Solution   *Solution   // nil when the envelope failed
	CallErrors []CallError // calls rejected on their own
	// Repair lists envelope-level problems (JSON pointers and causes); when
	// non-empty the runtime asks for a repair (or, retries exhausted, appends
	// RepairCode as an error and runs no calls). Missing required advisors
	// are listed here too, with RepairCode CodeAdvisorMissing when they are
	// the only problem.
	Repair     []string
	RepairCode Code
	Warnings   []Warning
}

// Scoped is the scoped view handed to an activity (§4.5).
type Scoped interface {
	Messages() []agentctx.Message             // the §4.2 view, in order
	Kind(name string) (json.RawMessage, bool) // by-kind accessor
}

// Result is what an activity returns (§4.5).
type Result struct {
	Value    any                // written at _outputPath in the call's instance; nil = nothing to write
	Messages []agentctx.Message // if set: appended verbatim instead
}

// Activity executes a tool (§4.5).
type Activity interface {
	Run(ctx context.Context, call *Call, tool *Tool, scoped Scoped) (Result, error)
}

// ActivityFunc adapts a function to Activity.
type ActivityFunc func(ctx context.Context, call *Call, tool *Tool, scoped Scoped) (Result, error)

// Run calls f.
func (f ActivityFunc) Run(ctx context.Context, call *Call, tool *Tool, scoped Scoped) (Result, error) {
	return f(ctx, call, tool, scoped)
}

// Registry resolves names at composition and dispatch.
type Registry interface {
	Activity(name string) (Activity, bool)
	Tool(name string) (ToolDecl, bool) // a registered tool, for `ref` tool messages
	Agent(key string) (*Agent, bool)   // a protocol agent, for delegates
}

// ScopePreview describes one requested scope's disclosure (§4.4).
type ScopePreview struct {
	Scope string   `json:"scope"`
	Bytes int      `json:"bytes"`
	Keys  []string `json:"keys"`
}

// ScopeRequest is what an approver decides on (§4.4).
type ScopeRequest struct {
	RunID        string         `json:"runId"`
	ToolID       string         `json:"toolId"`
	ParentToolID string         `json:"parentToolId,omitempty"`
	Tool         string         `json:"tool"`
	Instance     string         `json:"instance,omitempty"`
	Provisioned  []string       `json:"provisioned"`
	Requested    []string       `json:"requested"`
	Preview      []ScopePreview `json:"preview"`
	Timeout      time.Duration  `json:"-"`
}

// Verdicts of a scope decision.
const (
	VerdictApprove = "approve"
	VerdictDeny    = "deny"
	VerdictNarrow  = "narrow"
	VerdictTimeout = "timeout"
)

// ScopeDecision is an approver's answer (§4.4). Scopes is the requested
// subset granted (narrow); the runtime reports the effective grant.
type ScopeDecision struct {
	Verdict  string   `json:"decision"`
	Scopes   []string `json:"scopes"`
	Reason   string   `json:"reason,omitempty"`
	Remember string   `json:"remember,omitempty"` // "once" (default), "run", "chat"
	By       string   `json:"by,omitempty"`       // "user", "policy", "memory", "hook"
}

// Approver decides on requested scopes (policy "ask").
type Approver interface {
	Decide(ctx context.Context, req ScopeRequest) (ScopeDecision, error)
}

// GuardVerdict is a guard's answer for one call.
type GuardVerdict struct {
	Action string // "allow", "warn", "deny"
	Reason string
}

// Guard actions (GuardVerdict.Action).
const (
	GuardAllow = "allow"
	GuardWarn  = "warn"
	GuardDeny  = "deny"
)

// Guard may deny a call from the tally (§3.2).
type Guard interface {
	Check(call *Call, tally Tally) GuardVerdict
}

// AdviceReport is what OnAdvice observers receive for one turn.
type AdviceReport struct {
	Turn     int
	Opinions []Opinion
	Tallies  []Tally // per tool, tool fold order, tools with votes only
	Warnings []Warning
}

// TurnSummary is what OnTurn observers receive.
type TurnSummary struct {
	Turn       int
	Dispatched []string // tool ids
	Denied     []string // tool ids refused by guard or approval
	Stranded   []string // tool ids left unresolved
}

// Hooks are the interceptors and observers of §4.10. Interceptors run in
// order and may change values; observers get copies and a panic in one is
// recovered.
type Hooks struct {
	BeforeRequest   []func(ctx context.Context, req *llm.Request) (*llm.Request, error)
	Guards          []Guard
	OnUsage         []func(llm.Usage)
	OnTurn          []func(TurnSummary)
	OnAdvice        []func(AdviceReport)
	OnWrite         []func(agentctx.Message)
	OnScopeDecision []func(ScopeRequest, ScopeDecision)
	OnCallDecision  []func(CallConfirmation, ConfirmDecision) // aite extension: every call confirmation
	OnError         []func(agentctx.ErrorInfo)
}

// Ledger is returned instead of a result when a limit stops a run (LM5).
type Ledger struct {
	Cap          string        `json:"cap"` // "maxTurns", "modelCalls", "toolCalls", "deadline"
	Turns        int           `json:"turns"`
	ModelCalls   int           `json:"modelCalls"`
	Repairs      int           `json:"repairs"`
	ToolCalls    int           `json:"toolCalls"`
	Tokens       LedgerTokens  `json:"tokens"`
	ElapsedMs    int64         `json:"elapsedMs"`
	PendingCalls []PendingCall `json:"pendingCalls"`
	LastErrors   []string      `json:"lastErrors"`
}

// LedgerTokens counts the tokens spent.
type LedgerTokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// PendingCall is a call that was waiting when the run stopped.
type PendingCall struct {
	ToolID    string   `json:"toolId"`
	Tool      string   `json:"tool"`
	WaitingOn []string `json:"waitingOn"`
}
