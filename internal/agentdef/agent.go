package agentdef

import (
	"encoding/json"
	"slices"
	"time"
)

// Mode is how an agent runs (PLATFORM_API § 6.4).
type Mode string

// The modes.
const (
	ModeOneshot     Mode = "ONESHOT"
	ModeReact       Mode = "REACT"
	ModePlanExecute Mode = "PLAN_EXECUTE"
)

// ToolChoice says whether a turn with tools may, must or must not call one.
type ToolChoice string

// The tool choices.
const (
	ToolChoiceNone     ToolChoice = "NONE"
	ToolChoiceAuto     ToolChoice = "AUTO"
	ToolChoiceRequired ToolChoice = "REQUIRED"
)

// Effort is the reasoning effort of a model turn.
type Effort string

// The reasoning efforts.
const (
	EffortLow    Effort = "LOW"
	EffortMedium Effort = "MEDIUM"
	EffortHigh   Effort = "HIGH"
)

// The plan tools (§ 6.5). They exist only in PLAN_EXECUTE agents, need no
// tool file and no Go implementation of the caller's.
const (
	PlanAddTasks   = "_plan_add_tasks_"
	PlanUpdateTask = "_plan_update_task_"
	PlanGetTasks   = "_plan_get_tasks_"
)

// AgentDef is one loaded agent. It belongs to a Snapshot and must not be
// modified (its slices are shared).
type AgentDef struct {
	Key         string // agentKey: the file's key, else its basename
	Name        string
	Role        string
	Description string
	Icon        Icon
	Mode        Mode
	ModelConfig ModelConfig // the top level as written (ModelKey may be "")
	ToolConfig  ToolConfig  // the top level, unknown names dropped
	Skills      []string    // skill ids, lowercased, both forms merged, unknown ones dropped
	ToolChoice  ToolChoice  // as written, else the mode default (§ 6.3)
	Budget      Budget      // members not written take the mode default (§ 6.3)

	// The mode's block; the others are nil.
	Plain       *Stage // ONESHOT
	React       *ReactBlock
	PlanExecute *PlanExecuteBlock

	// Internal marks a sub-agent that other agents run (a delegate such as
	// the cursor agent): it is not listed by GET /agents, not chosen as a
	// default and not run by a query of its own (file key "internal").
	Internal bool

	RuntimePrompts RuntimePrompts // blank members take the defaults (§ 6.2, § 6.4)
	Tools          []string       // the enabled set: every configured tool name, in first-seen order
	File           string         // the file it was loaded from

	// Protocol is the agent's protocol block (AGENT_PROTOCOL § 5.1); nil
	// when the agent is not a protocol agent.
	Protocol *ProtocolBlock
	// Advisors are the advisor declarations of a protocol agent, in file
	// order, each as written (strict JSON, key order kept, no `type` added;
	// see AdvisorMessages). Two entries with the same id are patches of one
	// advisor, folded by the protocol runtime.
	Advisors []json.RawMessage
}

// IsProtocol reports whether the agent is a protocol agent (it has a
// protocol block).
func (a *AgentDef) IsProtocol() bool { return a.Protocol != nil }

// Icon is either a string ("emoji:📚", in Text) or a named icon with a
// color.
type Icon struct {
	Text  string
	Name  string
	Color string
}

// IsZero reports whether no icon is set.
func (i Icon) IsZero() bool { return i == Icon{} }

// ModelConfig selects and tunes the model of a stage.
type ModelConfig struct {
	ModelKey    string // a key of the model registry
	Reasoning   Reasoning
	Temperature *float64 // nil: the provider's default
	TopP        *float64
	MaxTokens   *int
}

// Reasoning turns model reasoning on; Effort "" leaves it to the provider.
type Reasoning struct {
	Enabled bool
	Effort  Effort
}

// ToolConfig names the ordinary tools of a stage, lowercased. Latents and
// Delegates (the .latent and .delegate tools) exist only in protocol agents.
type ToolConfig struct {
	Backends  []string
	Frontends []string
	Actions   []string
	Latents   []string
	Delegates []string
}

// Names returns all the names: backends, then frontends, actions, latents
// and delegates.
func (c ToolConfig) Names() []string {
	return slices.Concat(c.Backends, c.Frontends, c.Actions, c.Latents, c.Delegates)
}

// Empty reports whether the config names no tool.
func (c ToolConfig) Empty() bool {
	return len(c.Backends)+len(c.Frontends)+len(c.Actions)+len(c.Latents)+len(c.Delegates) == 0
}

// without returns a copy of c without name (new slices).
func (c ToolConfig) without(name string) ToolConfig {
	drop := func(list []string) []string {
		var out []string
		for _, n := range list {
			if n != name {
				out = append(out, n)
			}
		}
		return out
	}
	return ToolConfig{Backends: drop(c.Backends), Frontends: drop(c.Frontends), Actions: drop(c.Actions),
		Latents: drop(c.Latents), Delegates: drop(c.Delegates)}
}

// Stage is one stage of a mode with its effective settings: a stage's own
// modelConfig replaces the top-level one (a ModelKey it lacks is the
// top-level one), its own toolConfig replaces the top-level one (explicit
// null or empty: no ordinary tools), and a missing one inherits.
type Stage struct {
	SystemPrompt string
	ModelConfig  ModelConfig
	ToolConfig   ToolConfig
	DeepThinking bool // the plan stage only
}

// ReactBlock is the REACT block.
type ReactBlock struct {
	Stage
	MaxSteps int // default 6
}

// PlanExecuteBlock is the PLAN_EXECUTE block.
type PlanExecuteBlock struct {
	Plan    Stage
	Execute Stage
	Summary *Stage // nil when not written; a blank summary prompt is the execute one
	// MaxSteps bounds the tasks of a run (default 15).
	MaxSteps int
}

// SummaryStage returns the summary stage, or the execute stage when the
// file has none.
func (b *PlanExecuteBlock) SummaryStage() Stage {
	if b.Summary != nil {
		return *b.Summary
	}
	return b.Execute
}

// Budget bounds a run (§ 6.3). Times are in milliseconds, as written.
type Budget struct {
	RunTimeoutMs int
	Model        CallBudget // RetryCount: repair turns when REQUIRED yields no call
	Tool         CallBudget // RetryCount: backend retries on timeout or failure
}

// CallBudget bounds the model or tool calls of a run.
type CallBudget struct {
	MaxCalls   int
	TimeoutMs  int
	RetryCount int
}

// RunTimeout returns RunTimeoutMs as a duration.
func (b Budget) RunTimeout() time.Duration { return ms(b.RunTimeoutMs) }

// Timeout returns TimeoutMs as a duration.
func (c CallBudget) Timeout() time.Duration { return ms(c.TimeoutMs) }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// RuntimePrompts are the texts the runtime adds to prompts; blank members
// of the file take the Default* constants.
type RuntimePrompts struct {
	TaskExecutionPromptTemplate string // planExecute.taskExecutionPromptTemplate
	CatalogHeader               string // skill.catalogHeader
	DisclosureHeader            string // skill.disclosureHeader
	InstructionsLabel           string // skill.instructionsLabel
	ToolDescriptionTitle        string // toolAppendix.toolDescriptionTitle
	AfterCallHintTitle          string // toolAppendix.afterCallHintTitle
}

// MainStage returns the stage whose prompt describes the agent: plain,
// react, or execute for PLAN_EXECUTE (the /agent endpoint's instructions).
func (a *AgentDef) MainStage() Stage {
	switch {
	case a.Plain != nil:
		return *a.Plain
	case a.React != nil:
		return a.React.Stage
	case a.PlanExecute != nil:
		return a.PlanExecute.Execute
	}
	return Stage{}
}

// Stages returns the agent's stages by name: "plain"; "react"; or "plan",
// "execute" and, when written, "summary".
func (a *AgentDef) Stages() map[string]Stage {
	switch {
	case a.Plain != nil:
		return map[string]Stage{"plain": *a.Plain}
	case a.React != nil:
		return map[string]Stage{"react": a.React.Stage}
	case a.PlanExecute != nil:
		m := map[string]Stage{"plan": a.PlanExecute.Plan, "execute": a.PlanExecute.Execute}
		if a.PlanExecute.Summary != nil {
			m["summary"] = *a.PlanExecute.Summary
		}
		return m
	}
	return nil
}
