package agentdef

// Defaults of PLATFORM_API §§ 6.1–6.4.
const (
	DefaultReactMaxSteps       = 6
	DefaultPlanExecuteMaxSteps = 15
	DefaultMaxSkillPromptChars = 8000

	DefaultCatalogHeader        = "Available skills:"
	DefaultDisclosureHeader     = "Skill instructions:"
	DefaultInstructionsLabel    = "Instructions:"
	DefaultToolDescriptionTitle = "Tool notes:"
	DefaultAfterCallHintTitle   = "After calling a tool:"

	// DefaultTaskExecutionPromptTemplate is the user message of an execute
	// task; {{task_list}}, {{task_id}} and {{task_description}} are
	// replaced by the runtime.
	DefaultTaskExecutionPromptTemplate = "Task list:\n{{task_list}}\n\n" +
		"Current task: {{task_id}}: {{task_description}}\n\n" +
		"Prefer one tool call per round. Before you finish, call `_plan_update_task_` for this task with its final status."
)

// DefaultBudget returns the budget of a mode when the file sets none
// (§ 6.3). Model.RetryCount is the mode's number of repair retries, which
// also applies when a file writes 0.
func DefaultBudget(m Mode) Budget {
	switch m {
	case ModeOneshot:
		return Budget{RunTimeoutMs: 30_000, Model: CallBudget{3, 30_000, 2}, Tool: CallBudget{5, 30_000, 0}}
	case ModeReact:
		return Budget{RunTimeoutMs: 120_000, Model: CallBudget{15, 60_000, 1}, Tool: CallBudget{20, 120_000, 0}}
	case ModePlanExecute:
		return Budget{RunTimeoutMs: 300_000, Model: CallBudget{30, 120_000, 2}, Tool: CallBudget{50, 300_000, 0}}
	}
	return Budget{}
}

// DefaultToolChoice returns the tool choice of a mode when the file sets
// none: AUTO, except for ONESHOT whose stage has no tools (NONE).
func DefaultToolChoice(m Mode, stageHasTools bool) ToolChoice {
	if m == ModeOneshot && !stageHasTools {
		return ToolChoiceNone
	}
	return ToolChoiceAuto
}

// DefaultRuntimePrompts returns the runtime prompts when a file sets none.
func DefaultRuntimePrompts() RuntimePrompts {
	return RuntimePrompts{
		TaskExecutionPromptTemplate: DefaultTaskExecutionPromptTemplate,
		CatalogHeader:               DefaultCatalogHeader,
		DisclosureHeader:            DefaultDisclosureHeader,
		InstructionsLabel:           DefaultInstructionsLabel,
		ToolDescriptionTitle:        DefaultToolDescriptionTitle,
		AfterCallHintTitle:          DefaultAfterCallHintTitle,
	}
}
