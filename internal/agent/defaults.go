package agent

import (
	"cmp"

	"github.com/aitexteditor/aite/internal/agentdef"
)

// normalize returns a copy of a with the defaults of §§ 6.2–6.4 where a
// value is missing (agentdef already fills them for loaded agents; this
// protects against hand-built ones). The mode blocks are copied, never
// changed in place: they belong to the definitions snapshot.
func normalize(a agentdef.AgentDef) agentdef.AgentDef {
	d := agentdef.DefaultBudget(a.Mode)
	b := &a.Budget
	b.RunTimeoutMs = cmp.Or(b.RunTimeoutMs, d.RunTimeoutMs)
	b.Model.MaxCalls = cmp.Or(b.Model.MaxCalls, d.Model.MaxCalls)
	b.Model.TimeoutMs = cmp.Or(b.Model.TimeoutMs, d.Model.TimeoutMs)
	b.Model.RetryCount = cmp.Or(b.Model.RetryCount, d.Model.RetryCount)
	b.Tool.MaxCalls = cmp.Or(b.Tool.MaxCalls, d.Tool.MaxCalls)
	b.Tool.TimeoutMs = cmp.Or(b.Tool.TimeoutMs, d.Tool.TimeoutMs)
	if a.React != nil && a.React.MaxSteps <= 0 {
		rb := *a.React
		rb.MaxSteps = agentdef.DefaultReactMaxSteps
		a.React = &rb
	}
	if a.PlanExecute != nil && a.PlanExecute.MaxSteps <= 0 {
		pb := *a.PlanExecute
		pb.MaxSteps = agentdef.DefaultPlanExecuteMaxSteps
		a.PlanExecute = &pb
	}
	rp, dp := &a.RuntimePrompts, agentdef.DefaultRuntimePrompts()
	rp.TaskExecutionPromptTemplate = cmp.Or(rp.TaskExecutionPromptTemplate, dp.TaskExecutionPromptTemplate)
	rp.CatalogHeader = cmp.Or(rp.CatalogHeader, dp.CatalogHeader)
	rp.DisclosureHeader = cmp.Or(rp.DisclosureHeader, dp.DisclosureHeader)
	rp.InstructionsLabel = cmp.Or(rp.InstructionsLabel, dp.InstructionsLabel)
	rp.ToolDescriptionTitle = cmp.Or(rp.ToolDescriptionTitle, dp.ToolDescriptionTitle)
	rp.AfterCallHintTitle = cmp.Or(rp.AfterCallHintTitle, dp.AfterCallHintTitle)
	return a
}
