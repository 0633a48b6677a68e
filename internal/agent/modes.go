package agent

import (
	"context"
	"fmt"

	"github.com/aitexteditor/aite/internal/agentdef"
)

// The stage names (§ 6.4).
const (
	stageOneshot      = "oneshot"
	stageReactFinal   = "react-final"
	stagePlanDraft    = "plan-draft"
	stagePlanGenerate = "plan-generate"
	stageSummary      = "summary"
)

func reactStage(step int) string           { return fmt.Sprintf("react-step-%d", step) }
func executeStage(n int) string            { return fmt.Sprintf("execute-task-%d", n) }
func (r *run) required() bool              { return r.agent.ToolChoice == agentdef.ToolChoiceRequired }
func (r *run) repairs() int                { return r.agent.Budget.Model.RetryCount }
func stageTools(s agentdef.Stage) []string { return s.ToolConfig.Names() }

// firstStage names the stage of the run's first model turn (the stage the
// user message is stored with).
func (r *run) firstStage() string {
	switch {
	case r.agent.Plain != nil:
		return stageOneshot
	case r.agent.React != nil:
		return reactStage(1)
	case r.continued:
		return executeStage(1)
	case r.agent.PlanExecute.Plan.DeepThinking:
		return stagePlanDraft
	}
	return stagePlanGenerate
}

// oneshot is ONESHOT (§ 6.4): one turn without tools; or a tool turn (with
// REQUIRED repairs), its calls, and a final turn without tools.
func (r *run) oneshot(ctx context.Context) error {
	st := r.agent.Plain
	ts := turnSpec{stage: stageOneshot, config: st.ModelConfig, system: st.SystemPrompt}
	tools := r.toolSet(stageTools(*st))
	if tools.empty() {
		_, err := r.lastTurn(ctx, ts)
		return err
	}
	ts.tools, ts.choice = tools, r.agent.ToolChoice
	rp, err := r.requiredTurn(ctx, ts)
	if err != nil {
		return err
	}
	if len(rp.calls) == 0 {
		if r.required() {
			return failf(CodeToolCallRequired, "No tool call after %d repair turns (toolChoice REQUIRED)", r.repairs())
		}
		return nil
	}
	results, err := r.execCalls(ctx, ts.stage, rp)
	if err != nil {
		return err
	}
	ts.msgs = append(append(ts.msgs, rp.assistant()), results...)
	ts.tools = nil
	_, err = r.lastTurn(ctx, ts)
	return err
}

// lastTurn runs a turn without tools. Calls the model makes anyway get
// their tool_not_enabled results, so every call has one (§ 3.3 rule 6).
func (r *run) lastTurn(ctx context.Context, ts turnSpec) (*reply, error) {
	rp, err := r.turn(ctx, ts)
	if err == nil && len(rp.calls) > 0 {
		_, err = r.execCalls(ctx, ts.stage, rp)
	}
	return rp, err
}

// requiredTurn runs a turn; under REQUIRED a reply without calls is
// repeated with the identical request up to retryCount times.
func (r *run) requiredTurn(ctx context.Context, ts turnSpec) (*reply, error) {
	rp, err := r.turn(ctx, ts)
	for i := 0; err == nil && ts.choice == agentdef.ToolChoiceRequired && len(rp.calls) == 0 && i < r.repairs(); i++ {
		rp, err = r.turn(ctx, ts)
	}
	return rp, err
}

// react is REACT (§ 6.4): steps with tools until a text answer, then one
// final turn without tools.
func (r *run) react(ctx context.Context) error {
	st := r.agent.React
	ts := turnSpec{config: st.ModelConfig, system: st.SystemPrompt}
	if tools := r.toolSet(stageTools(st.Stage)); !tools.empty() {
		ts.tools, ts.choice = tools, r.agent.ToolChoice
	}
	for step := 1; step <= st.MaxSteps; step++ {
		ts.stage = reactStage(step)
		rp, err := r.requiredTurn(ctx, ts)
		if err != nil {
			return err
		}
		if len(rp.calls) > 0 {
			results, err := r.execCalls(ctx, ts.stage, rp)
			if err != nil {
				return err
			}
			ts.msgs = append(append(ts.msgs, rp.assistant()), results...)
			continue
		}
		if (ts.withTools() && ts.choice == agentdef.ToolChoiceRequired) || rp.blank() {
			continue // nothing injected
		}
		return nil
	}
	// Out of steps only when the model could have answered in a step and
	// chose tools every time: under REQUIRED it cannot answer before the
	// final turn, which is then its normal answer (docs/agents.md).
	r.outOfSteps = ts.choice != agentdef.ToolChoiceRequired
	ts.stage, ts.tools, ts.choice = stageReactFinal, nil, ""
	rp, err := r.lastTurn(ctx, ts)
	if err != nil {
		return err
	}
	if rp.blank() {
		return failf(CodeNoFinalAnswer, "The final turn produced no answer after %d steps", st.MaxSteps)
	}
	return nil
}
