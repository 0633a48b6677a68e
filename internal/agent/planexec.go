package agent

import (
	"context"
	"strings"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
)

// maxWorkRounds bounds the work rounds of a task (§ 6.4 step 3.3).
const maxWorkRounds = 6

// planExecute is PLAN_EXECUTE (§ 6.4): plan stage (or a continued plan),
// execute stage task by task, summary.
func (r *run) planExecute(ctx context.Context) error {
	pe := r.agent.PlanExecute
	if r.continued {
		r.em.emit(Event{Type: PlanUpdate, Plan: r.plan.snapshot()})
	} else if err := r.planStage(ctx, pe); err != nil {
		return err
	}
	if err := r.executeTasks(ctx, pe); err != nil {
		return err
	}
	st := pe.SummaryStage()
	rp, err := r.lastTurn(ctx, turnSpec{stage: stageSummary, config: st.ModelConfig, system: st.SystemPrompt, msgs: r.execMsgs})
	if err != nil {
		return err
	}
	if rp.blank() {
		return failf(CodeNoFinalAnswer, "The summary produced no answer")
	}
	return nil
}

// planStage runs the optional plan-draft turn and the plan-generate turns
// until the plan has a task (§ 6.4 step 2).
func (r *run) planStage(ctx context.Context, pe *agentdef.PlanExecuteBlock) error {
	ts := turnSpec{config: pe.Plan.ModelConfig, system: r.planSystem(pe)}
	if pe.Plan.DeepThinking {
		ts.stage, ts.reasoning = stagePlanDraft, reasoningOn
		rp, err := r.lastTurn(ctx, ts)
		if err != nil {
			return err
		}
		if !rp.blank() {
			ts.msgs = append(ts.msgs, llm.Message{Role: llm.RoleAssistant, Content: rp.content()})
		}
	}
	ts.stage, ts.reasoning = stagePlanGenerate, reasoningOff
	ts.tools, ts.choice = r.toolSet([]string{agentdef.PlanAddTasks}), agentdef.ToolChoiceRequired
	for attempt := 0; attempt <= r.repairs(); attempt++ {
		rp, err := r.turn(ctx, ts)
		if err != nil {
			return err
		}
		if len(rp.calls) == 0 {
			continue // the identical request again
		}
		results, err := r.execCalls(ctx, ts.stage, rp)
		if err != nil {
			return err
		}
		if len(r.plan.tasks) > 0 {
			return nil
		}
		ts.msgs = append(append(ts.msgs, rp.assistant()), results...)
	}
	return failf(CodePlanNotCreated, "The plan stage created no task after %d repair turns", r.repairs())
}

// planSystem is the plan stage's system prompt: the plan prompt, the
// execute-stage tools for reference, and the callable plan tool.
func (r *run) planSystem(pe *agentdef.PlanExecuteBlock) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(pe.Plan.SystemPrompt))
	var ref []string
	for _, t := range r.toolSet(stageTools(pe.Execute)).list {
		if t.ordinary() {
			ref = append(ref, "- "+t.name+": "+oneLine(t.schema.Description))
		}
	}
	if len(ref) > 0 {
		b.WriteString("\n\nTools of the execution stage (for reference, do not call):\n" + strings.Join(ref, "\n"))
	}
	add := planBuiltins[agentdef.PlanAddTasks]
	b.WriteString("\n\nCallable tool:\n- " + add.name + ": " + add.desc)
	return b.String()
}

// executeTasks runs the init tasks in plan order, at most maxSteps of
// them (§ 6.4 step 3).
func (r *run) executeTasks(ctx context.Context, pe *agentdef.PlanExecuteBlock) error {
	ex := pe.Execute
	ts := turnSpec{config: ex.ModelConfig, system: ex.SystemPrompt, choice: r.agent.ToolChoice,
		tools: r.toolSet(append(stageTools(ex), agentdef.PlanUpdateTask))}
	for n := 1; n <= pe.MaxSteps; n++ {
		t := r.plan.firstInit()
		if t == nil {
			return nil
		}
		id, desc := t.TaskID, t.Description
		ts.stage = executeStage(n)
		r.task = id
		r.em.emit(Event{Type: TaskStart, Task: &Task{ID: id, Description: desc}})
		if err := r.taskMessage(ctx, ts.stage, id, desc); err != nil {
			return err
		}
		if err := r.workTask(ctx, ts, id); err != nil {
			return err
		}
		switch r.plan.task(id).Status {
		case TaskCompleted:
			r.em.emit(Event{Type: TaskEnd, Task: &Task{ID: id, Status: TaskCompleted}})
		case TaskCanceled:
			r.em.emit(Event{Type: TaskEnd, Task: &Task{ID: id, Status: TaskCanceled}})
		case TaskFailed:
			return failf(CodeTaskFailed, "Task %s failed", id)
		default:
			return &failure{info: ErrorInfo{Code: CodePlanStalled, Message: "Task " + id + " was not updated"},
				taskCode: "task_not_updated"}
		}
		r.task = ""
	}
	return nil
}

// taskMessage adds and stores the task's user message.
func (r *run) taskMessage(ctx context.Context, stage, id, desc string) error {
	text := strings.NewReplacer("{{task_list}}", r.plan.lines(), "{{task_id}}", id, "{{task_description}}", desc).
		Replace(r.agent.RuntimePrompts.TaskExecutionPromptTemplate)
	r.execMsgs = append(r.execMsgs, llm.Message{Role: llm.RoleUser, Content: text})
	return r.saveUserText(ctx, stage, text)
}

// workTask runs the work rounds of a task, then the forced rounds, until
// the task leaves status init (§ 6.4 steps 3.3–3.4).
func (r *run) workTask(ctx context.Context, ts turnSpec, id string) error {
	for range maxWorkRounds {
		if done, err := r.workRound(ctx, ts, id, true); done || err != nil {
			return err
		}
	}
	ts.choice = agentdef.ToolChoiceRequired
	for range r.repairs() {
		if done, err := r.workRound(ctx, ts, id, false); done || err != nil {
			return err
		}
	}
	return nil
}

// workRound runs one round: a turn, then all its calls. done reports that
// the task left status init.
func (r *run) workRound(ctx context.Context, ts turnSpec, id string, keepText bool) (done bool, err error) {
	ts.msgs = r.execMsgs
	rp, err := r.turn(ctx, ts)
	if err != nil {
		return false, err
	}
	if len(rp.calls) == 0 {
		if keepText && !rp.blank() {
			r.execMsgs = append(r.execMsgs, rp.assistant())
		}
		return false, nil
	}
	results, err := r.execCalls(ctx, ts.stage, rp)
	r.execMsgs = append(append(r.execMsgs, rp.assistant()), results...)
	if err != nil {
		return false, err
	}
	return r.plan.task(id).Status != TaskInit, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
