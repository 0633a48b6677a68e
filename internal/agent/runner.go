package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
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
	// ContinuePlan is params.continuePlan (PLAN_EXECUTE, § 6.4 step 1).
	ContinuePlan bool
	// References are the query's references as a JSON array (a protocol
	// agent's input carries them); nil when there are none.
	References json.RawMessage
	// NewChat says the chat has no run before this one, so it has no
	// memory: the run does not read the store for it.
	NewChat bool

	// Tools are the Go backend tools the run may call, by name (the book
	// tools bound to the run's book, demo tools …). The runner adds its own
	// built-ins (plan tools, _skill_run_script_). Applied edits come back in
	// tool.Result.Edits.
	Tools map[string]tool.Tool
	// Activities are native protocol activities (AGENT_PROTOCOL § 4.5) by
	// name; they win over Tools of the same name and run with the
	// budget.tool timeout. An activity reports its applied edits with
	// tool.ReportEdit.
	Activities map[string]protocol.Activity
	// Context resolves the `provider` entries of a protocol agent's
	// protocol.context by name (AGENT_PROTOCOL § 5.1).
	Context map[string]ContextProvider
}

// ContextProvider supplies the messages of a `provider` entry of
// protocol.context at run start (AGENT_PROTOCOL § 5.1), e.g. the reference
// cards of the run's book.
type ContextProvider func(ctx context.Context) ([]agentctx.Message, error)

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
	ToolType    string          // ToolTypeFunction, ToolTypeHTML, ToolTypeQLC, ToolTypeLatent or ToolTypeDelegate; "" for an action
	ToolAPI     string          // optional
	ToolParams  json.RawMessage // complete arguments if already known at start, else nil
	Description string          // optional
	ToolKey     string          // frontend: the viewport key
	ToolTimeout int64           // frontend: ms
}

// ModelSource resolves a modelKey to a provider and its model.
type ModelSource interface {
	Provider(modelKey string) (llm.Provider, models.Model, error)
}

// Memory is where a chat's runs keep what later runs read (PLATFORM_API
// § 5; AGENT_PROTOCOL § 5.5): the messages of each run, in order. Any
// store.Store is one; the CLI keeps its chats in an in-memory store.
// A Memory that also stores system snapshots (AppendSystem) and plans
// (SavePlan, LatestPlan) gets them too (see store.Systems, store.Plans).
type Memory interface {
	// RecentMessages returns the messages of the chat's last k runs, in
	// run order then in order.
	RecentMessages(ctx context.Context, chatID string, k int) ([]store.Message, error)
	// AppendMessages appends messages to a run.
	AppendMessages(ctx context.Context, runID string, msgs ...store.Message) error
}

// snapshotMemory is a Memory that keeps the system snapshot of every model
// call (§ 5.1).
type snapshotMemory interface {
	AppendSystem(ctx context.Context, runID, stage string, body json.RawMessage) (bool, error)
}

// planMemory is a Memory that keeps PLAN_EXECUTE plans (§ 6.4).
type planMemory interface {
	SavePlan(ctx context.Context, p store.Plan) error
	LatestPlan(ctx context.Context, chatID string) (store.Plan, error)
}

// Runner runs agents: the one runtime of the CLI and the server. Its
// fields are set once before the first run; it is safe for concurrent
// runs.
type Runner struct {
	Models ModelSource
	Memory Memory
	// Waiter asks a person: frontend calls, scope and edit approvals
	// (without one, every question is answered as if nobody could).
	Waiter Waiter
	// Clock stamps stored messages and plans (default time.Now).
	Clock func() time.Time
	// Logger receives the run's diagnostics (default: discarded).
	Logger *slog.Logger

	// MemoryK is memory.k (default 20).
	MemoryK int
	// FrontendTimeout is tools.frontendSubmitTimeoutMs (default 300 s).
	FrontendTimeout time.Duration
	// AllowInlineCode is skills.allowInlineCode: code sent in
	// _skill_run_script_'s pythonCode runs for skills that declare
	// inlineCode (default false: only the scripts shipped with a skill).
	AllowInlineCode bool
	// MaxRetryWait is the longest provider Retry-After the runner waits
	// before its one reconnect (default DefaultMaxRetryWait); a longer one
	// ends the model call at once and the run.error says so.
	MaxRetryWait time.Duration
	// Sleep waits before a reconnect (default: a timer that stops when ctx
	// is done); tests inject a fake.
	Sleep func(ctx context.Context, d time.Duration) error
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
