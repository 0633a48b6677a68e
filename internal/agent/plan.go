package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/store"
)

// statuses are the task statuses (§ 6.4).
var statuses = []string{TaskInit, TaskCompleted, TaskFailed, TaskCanceled}

// The error texts of the plan tools (§ 6.5).
const (
	errInvalidStatus       = "Error: invalid status, allowed: init, completed, failed, canceled"
	errDescriptionRequired = "Error: task description is required"
	errTaskIDRequired      = "Error: taskId is required"
)

// plan is the run's plan (PLAN_EXECUTE).
type plan struct {
	id    string
	tasks []PlanTask
}

// task returns the task with id, or nil.
func (p *plan) task(id string) *PlanTask {
	for i := range p.tasks {
		if p.tasks[i].TaskID == id {
			return &p.tasks[i]
		}
	}
	return nil
}

// firstInit returns the first task in status init, or nil.
func (p *plan) firstInit() *PlanTask {
	for i := range p.tasks {
		if p.tasks[i].Status == TaskInit {
			return &p.tasks[i]
		}
	}
	return nil
}

// lines renders the tasks as "<taskId> | <status> | <description>" lines.
func (p *plan) lines() string {
	var b strings.Builder
	for i, t := range p.tasks {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(taskLine(t))
	}
	return b.String()
}

func taskLine(t PlanTask) string { return t.TaskID + " | " + t.Status + " | " + t.Description }

// newTaskID returns 8 lowercase hex digits not used in the plan.
func (p *plan) newTaskID() string {
	for {
		if id := randHex(); p.task(id) == nil {
			return id
		}
	}
}

// loadPlan sets the plan scope (§ 6.4 step 1): with continuePlan, the
// chat's latest plan is reused when it has a task in status init.
func (r *run) loadPlan(ctx context.Context) error {
	if r.plan == nil || !r.spec.ContinuePlan {
		return nil
	}
	pm, ok := r.e.Memory.(planMemory)
	if !ok {
		return nil
	}
	p, err := pm.LatestPlan(ctx, r.spec.ChatID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("agent: latest plan: %w", err)
	}
	var tasks []PlanTask
	if err := json.Unmarshal(p.Tasks, &tasks); err != nil {
		r.log.Warn("stored plan unreadable; starting a new plan", "planId", p.ID, "err", err)
		return nil
	}
	for i := range tasks {
		if !slices.Contains(statuses, tasks[i].Status) {
			tasks[i].Status = TaskInit // unknown or legacy (in_progress) reads as init
		}
	}
	old := &plan{id: p.ID, tasks: tasks}
	if old.firstInit() != nil {
		r.plan, r.continued = old, true
	}
	return nil
}

// snapshot is a copy of the plan for an event (its task list never nil).
func (p *plan) snapshot() *Plan {
	tasks := slices.Clone(p.tasks)
	if tasks == nil {
		tasks = []PlanTask{}
	}
	return &Plan{ID: p.id, Tasks: tasks}
}

// publishPlan emits plan.update with the whole list and stores the plan.
func (r *run) publishPlan(ctx context.Context) error {
	snap := r.plan.snapshot()
	r.em.emit(Event{Type: PlanUpdate, Plan: snap})
	body, err := marshal(snap.Tasks)
	if err != nil {
		return internalf("encode plan: %v", err)
	}
	pm, ok := r.e.Memory.(planMemory)
	if !ok {
		return nil
	}
	err = pm.SavePlan(ctx, store.Plan{ID: r.plan.id, ChatID: r.spec.ChatID, RunID: r.spec.RunID, Tasks: body,
		UpdatedAt: r.e.now()})
	if err != nil {
		return internalf("store plan: %v", err)
	}
	return nil
}

// taskArgs is one task of _plan_add_tasks_.
type taskArgs struct {
	TaskID      string  `json:"taskId"`
	Description string  `json:"description"`
	Status      *string `json:"status"`
}

// planAddTasks is _plan_add_tasks_: {tasks:[…]} or a single task. Model
// task ids are ignored; all tasks are checked before any is added.
func planAddTasks(_ context.Context, r *run, args string) (outcome, error) {
	var a struct {
		Tasks []taskArgs `json:"tasks"`
		taskArgs
	}
	if err := json.Unmarshal(nonEmpty(args), &a); err != nil {
		return outcome{text: "Error: invalid arguments: " + err.Error()}, nil
	}
	list := a.Tasks
	if len(list) == 0 {
		list = []taskArgs{a.taskArgs}
	}
	for _, t := range list {
		if t.Status != nil && !slices.Contains(statuses, *t.Status) {
			return outcome{text: errInvalidStatus}, nil
		}
		if strings.TrimSpace(t.Description) == "" {
			return outcome{text: errDescriptionRequired}, nil
		}
	}
	var lines []string
	for _, t := range list {
		nt := PlanTask{TaskID: r.plan.newTaskID(), Description: strings.TrimSpace(t.Description), Status: TaskInit}
		if t.Status != nil {
			nt.Status = *t.Status
		}
		r.plan.tasks = append(r.plan.tasks, nt)
		lines = append(lines, taskLine(nt))
	}
	return outcome{text: strings.Join(lines, "\n"), planChanged: true}, nil
}

// planUpdateTask is _plan_update_task_: {taskId, status, description?}.
func planUpdateTask(_ context.Context, r *run, args string) (outcome, error) {
	var a struct {
		TaskID      string  `json:"taskId"`
		Status      string  `json:"status"`
		Description *string `json:"description"`
	}
	if err := json.Unmarshal(nonEmpty(args), &a); err != nil {
		return outcome{text: "Error: invalid arguments: " + err.Error()}, nil
	}
	id := strings.TrimSpace(a.TaskID)
	switch {
	case id == "":
		return outcome{text: errTaskIDRequired}, nil
	case !slices.Contains(statuses, a.Status):
		return outcome{text: errInvalidStatus}, nil
	}
	t := r.plan.task(id)
	if t == nil {
		return outcome{text: "Error: unknown taskId: " + id}, nil
	}
	before := *t
	t.Status = a.Status
	if a.Description != nil && strings.TrimSpace(*a.Description) != "" {
		t.Description = strings.TrimSpace(*a.Description)
	}
	return outcome{text: "OK", planChanged: *t != before}, nil
}

// planGetTasks is _plan_get_tasks_.
func planGetTasks(_ context.Context, r *run, _ string) (outcome, error) {
	current := r.task
	if current == "" {
		current = "none"
	}
	parts := []string{"Plan ID: " + r.plan.id}
	if l := r.plan.lines(); l != "" {
		parts = append(parts, l)
	}
	parts = append(parts, "Current taskId: "+current)
	return outcome{text: strings.Join(parts, "\n")}, nil
}

func nonEmpty(args string) []byte {
	if strings.TrimSpace(args) == "" {
		return []byte("{}")
	}
	return []byte(args)
}

const statusSchema = `{"type":"string","enum":["init","completed","failed","canceled"]}`

// planBuiltins are the plan tools (§ 6.5).
var planBuiltins = map[string]*builtin{
	agentdef.PlanAddTasks: {name: agentdef.PlanAddTasks, direct: true, call: planAddTasks,
		desc: "Add tasks to the plan, in execution order. Task ids are assigned by the system; the result lists each " +
			"added task as `<taskId> | <status> | <description>`.",
		params: json.RawMessage(`{"type":"object","properties":{"tasks":{"type":"array","items":{"type":"object",` +
			`"properties":{"taskId":{"type":"string"},"description":{"type":"string"},"status":` + statusSchema + `},` +
			`"required":["description"],"additionalProperties":false}},"taskId":{"type":"string"},` +
			`"description":{"type":"string"},"status":` + statusSchema + `},"additionalProperties":false}`)},
	agentdef.PlanUpdateTask: {name: agentdef.PlanUpdateTask, direct: true, call: planUpdateTask,
		desc: "Set the status of a plan task (init, completed, failed, canceled), optionally with a new description.",
		params: json.RawMessage(`{"type":"object","properties":{"taskId":{"type":"string"},"status":` + statusSchema +
			`,"description":{"type":"string"}},"required":["taskId","status"],"additionalProperties":false}`)},
	agentdef.PlanGetTasks: {name: agentdef.PlanGetTasks, direct: true, call: planGetTasks,
		desc:   "List the plan's tasks with their ids and statuses, and the current task.",
		params: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
}

func isPlanTool(name string) bool { return planBuiltins[name] != nil }

// builtin returns the engine's own tool of that name: the plan tools in
// PLAN_EXECUTE runs, and _skill_run_script_.
func (r *run) builtin(name string) *builtin {
	if b := planBuiltins[name]; b != nil {
		if r.plan == nil {
			return nil
		}
		return b
	}
	if name == SkillRunScript {
		return skillBuiltin
	}
	return nil
}
