package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

const twoTasks = `{"tasks":[{"taskId":"x1","description":"First"},{"description":"Second","status":"init"}]}`

var currentTaskRE = regexp.MustCompile(`Current task: ([0-9a-f]{8}):`)

// currentTask returns the task id of the last task prompt of a request.
func currentTask(req *llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == llm.RoleUser {
			if sm := currentTaskRE.FindStringSubmatch(m.Content); sm != nil {
				return sm[1]
			}
		}
	}
	return ""
}

// planOracle answers PLAN_EXECUTE requests by their system prompt: the
// plan stage adds tasks, a task round is work(request, taskID, n) (n
// counts the calls of the oracle), the summary says "summary".
func planOracle(tasks string, work func(req *llm.Request, taskID string, n int) llmtest.Reply) *llmtest.Scripted {
	var n atomic.Int64
	return llmtest.ScriptedFunc(func(req *llm.Request) llmtest.Reply {
		i := int(n.Add(1))
		sys := req.Messages[0].Content
		switch {
		case strings.HasPrefix(sys, "You plan."):
			return llmtest.Calls(call(fmt.Sprint("add", i), agentdef.PlanAddTasks, tasks))
		case strings.HasPrefix(sys, "You summarise."):
			return llmtest.Text("summary")
		}
		return work(req, currentTask(req), i)
	})
}

// complete is a task round that calls echo and completes the task.
func complete(_ *llm.Request, id string, n int) llmtest.Reply {
	return llmtest.Calls(call(fmt.Sprint("e", n), "echo", `{}`),
		call(fmt.Sprint("u", n), agentdef.PlanUpdateTask, `{"taskId":"`+id+`","status":"completed"}`))
}

// Rows 53, 54, 56, 58: tasks run in plan order between task.start and
// task.complete; every call of a round runs; plan.update with the full
// list follows every plan-changing call; _plan_add_tasks_ ignores model
// task ids and answers "<8hex> | init | <description>"; the plan is stored.
func TestPlanExecuteCycle(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": planExec("", `"key": "a", "toolConfig": {"backends": ["echo"]}`)})
	p := planOracle(twoTasks, complete)
	e.provide(p)
	rec, s := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	require.Len(t, rec.plans, 3)
	tasks := rec.plans[2]
	require.Len(t, tasks, 2)
	id1, id2 := tasks[0].TaskID, tasks[1].TaskID
	require.Regexp(t, `^[0-9a-f]{8}$`, id1)
	require.NotEqual(t, "x1", id1)
	require.Equal(t, []PlanTask{{TaskID: id1, Description: "First", Status: "completed"},
		{TaskID: id2, Description: "Second", Status: "completed"}}, tasks)
	require.Equal(t, "init", rec.plans[0][1].Status)
	require.Equal(t, "completed", rec.plans[1][0].Status)
	require.Equal(t, "init", rec.plans[1][1].Status)
	require.Equal(t, []string{
		"result:add1:" + id1 + " | init | First\n" + id2 + " | init | Second", "plan:plan_run0001:2",
		"task.start:" + id1 + ":First", "result:e2:echo:{}", "result:u2:OK", "plan:plan_run0001:2", "task.complete:" + id1,
		"task.start:" + id2 + ":Second", "result:e3:echo:{}", "result:u3:OK", "plan:plan_run0001:2", "task.complete:" + id2,
		"content:summary", "complete:stop",
	}, rec.filter("result:", "plan:", "task.", "content:", "complete:"))

	stored, err := e.st.GetPlan(context.Background(), "plan_run0001")
	require.NoError(t, err)
	var got []PlanTask
	require.NoError(t, json.Unmarshal(stored.Tasks, &got))
	require.Equal(t, tasks, got)

	reqs := p.Requests()
	require.Len(t, reqs, 4)
	gen := reqs[0]
	require.Equal(t, []string{agentdef.PlanAddTasks}, toolNames(gen))
	require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceRequired}, gen.ToolChoice)
	require.Contains(t, gen.Messages[0].Content, "(for reference, do not call):\n- echo: Go tool echo.")
	task1 := reqs[1]
	require.Equal(t, []string{"echo", agentdef.PlanUpdateTask}, toolNames(task1))
	require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceAuto}, task1.ToolChoice)
	require.Equal(t, "Task list:\n"+id1+" | init | First\n"+id2+" | init | Second\n\nCurrent task: "+id1+": First\n\n"+
		"Prefer one tool call per round. Before you finish, call `_plan_update_task_` for this task with its final status.",
		last(ptrs(task1.Messages)).Content)
	summary := reqs[3]
	require.Empty(t, summary.Tools)
	require.Equal(t, "You summarise.", summary.Messages[0].Content)
	require.Len(t, toolMsgs(summary), 4, "the summary sees the execute history")

	var stages []string
	for _, m := range e.messages(s.RunID) {
		stages = append(stages, fmt.Sprint(m["@stage"], "/", m["@task"]))
	}
	require.Equal(t, []string{"plan-generate/", "plan-generate/", "plan-generate/",
		"execute-task-1/" + id1, "execute-task-1/" + id1, "execute-task-1/" + id1, "execute-task-1/" + id1, "execute-task-1/" + id1,
		"execute-task-2/" + id2, "execute-task-2/" + id2, "execute-task-2/" + id2, "execute-task-2/" + id2, "execute-task-2/" + id2,
		"summary/"}, stages)
}

func ptrs[T any](s []T) []*T {
	out := make([]*T, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

// Row 51: with deepThinking a draft turn (reasoning on, no tools, its
// text kept as an assistant message), then plan-generate with only
// _plan_add_tasks_, REQUIRED, reasoning off.
func TestPlanDeepThinking(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": planExec(`"deepThinking": true`,
		`"key": "a", "modelConfig": {"modelKey": "m1", "reasoning": {"enabled": true, "effort": "LOW"}}`)})
	p := scripted(llmtest.Join(llmtest.Reasoning("pondering"), llmtest.Text("1. do it")),
		llmtest.Calls(call("add", agentdef.PlanAddTasks, `{"description":"Do it"}`)),
		llmtest.Calls(call("u1", agentdef.PlanUpdateTask, `{"taskId":"bogus","status":"completed"}`)))
	e.provide(p)
	rec, s := e.run("a", "go")
	require.Equal(t, []string{"reasoning:pondering", "content:1. do it", "turn"}, rec.list()[:3])
	reqs := p.Requests()
	draft, gen := reqs[0], reqs[1]
	require.Empty(t, draft.Tools)
	require.Equal(t, &llm.ReasoningConfig{Effort: "low"}, draft.Reasoning)
	require.Equal(t, []string{agentdef.PlanAddTasks}, toolNames(gen))
	require.Equal(t, llm.ToolChoiceRequired, gen.ToolChoice.Mode)
	require.Nil(t, gen.Reasoning)
	require.Equal(t, llm.Message{Role: llm.RoleAssistant, Content: "1. do it"}, gen.Messages[len(gen.Messages)-1])
	require.Equal(t, "plan-draft", e.stages(s.RunID)[0])
	require.Equal(t, "result:u1:Error: unknown taskId: bogus", rec.filter("result:u1")[0])
}

// Row 52: a plan stage that never calls _plan_add_tasks_ (1 turn + 2
// repairs) → run.error plan_not_created.
func TestPlanNotCreated(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": planExec("", `"key": "a"`)})
	p := scripted(llmtest.Text("no"), llmtest.Text("no"), llmtest.Text("no"), llmtest.Text("never"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "fail:plan_not_created")
	require.Len(t, p.Requests(), 3)
	require.Empty(t, rec.plans)
}

// Row 55: a task never updated after 6 work rounds and 2 forced rounds →
// task.fail task_not_updated, then run.error plan_stalled.
func TestPlanStalled(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": planExec("", `"key": "a"`)})
	p := planOracle(`{"description":"Only"}`, func(*llm.Request, string, int) llmtest.Reply { return llmtest.Text("working") })
	e.provide(p)
	rec, _ := e.run("a", "go")
	id := rec.plans[0][0].TaskID
	require.Equal(t, []string{"task.fail:" + id + ":task_not_updated", "fail:plan_stalled"}, rec.list()[len(rec.list())-2:])
	reqs := p.Requests()
	require.Len(t, reqs, 1+6+2)
	require.Equal(t, llm.ToolChoiceAuto, reqs[6].ToolChoice.Mode)
	require.Equal(t, llm.ToolChoiceRequired, reqs[7].ToolChoice.Mode)
	require.Equal(t, reqs[7].Messages, reqs[8].Messages, "forced rounds inject nothing")
}

// Row 46 and task outcomes: a model failure during a task emits task.fail
// with the same code before run.error; a failed task → task_failed; a
// canceled task → task.cancel and the next task runs.
func TestTaskOutcomes(t *testing.T) {
	files := map[string]string{"agents/a.json": planExec("", `"key": "a"`)}
	t.Run("model error", func(t *testing.T) {
		e := newEnv(t, files)
		e.provide(planOracle(`{"description":"Only"}`, func(*llm.Request, string, int) llmtest.Reply {
			return llmtest.Fail(&llm.Error{Kind: llm.BadRequest, Status: 400})
		}))
		rec, _ := e.run("a", "go")
		id := rec.plans[0][0].TaskID
		require.Equal(t, []string{"task.start:" + id + ":Only", "turn", "task.fail:" + id + ":model_error", "fail:model_error"},
			rec.list()[len(rec.list())-4:])
	})
	t.Run("failed and canceled", func(t *testing.T) {
		e := newEnv(t, files)
		statuses := map[int]string{2: "canceled", 3: "failed"}
		e.provide(planOracle(twoTasks, func(_ *llm.Request, id string, n int) llmtest.Reply {
			return llmtest.Calls(call(fmt.Sprint("u", n), agentdef.PlanUpdateTask,
				`{"taskId":"`+id+`","status":"`+statuses[n]+`","description":"Changed"}`))
		}))
		rec, _ := e.run("a", "go")
		ids := rec.plans[0]
		require.Equal(t, []string{"task.start:" + ids[0].TaskID + ":First", "task.cancel:" + ids[0].TaskID,
			"task.start:" + ids[1].TaskID + ":Second", "task.fail:" + ids[1].TaskID + ":task_failed", "fail:task_failed"},
			rec.filter("task.", "fail:"))
		require.Equal(t, "Changed", rec.plans[1][0].Description)
	})
}

// Row 57: a new PLAN_EXECUTE run gets a new planId; with continuePlan the
// chat's latest plan (with an init task) is reused: plan.update first,
// then its open tasks, no plan stage.
func TestContinuePlan(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": `{"key": "a", "name": "Pe", "mode": "PLAN_EXECUTE",
		"modelConfig": {"modelKey": "m1"}, "planExecute": {"maxSteps": 1, "plan": {"systemPrompt": "You plan."},
		"execute": {"systemPrompt": "You execute."}, "summary": {"systemPrompt": "You summarise."}}}`})
	p := planOracle(twoTasks, func(_ *llm.Request, id string, n int) llmtest.Reply {
		return llmtest.Calls(call(fmt.Sprint("u", n), agentdef.PlanUpdateTask, `{"taskId":"`+id+`","status":"completed"}`))
	})
	e.provide(p)
	rec1, _ := e.run("a", "first")
	rec1.requireTerminal(t, "complete:stop")
	ids := rec1.plans[0]
	require.Equal(t, []string{"task.start:" + ids[0].TaskID + ":First", "task.complete:" + ids[0].TaskID},
		rec1.filter("task."), "maxSteps 1: one task per run")

	s := e.spec("a", "continue")
	s.ContinuePlan = true
	rec2 := e.recorder(s)
	require.NoError(t, rec2.drain(e.eng.Run(context.Background(), s)))
	rec2.requireTerminal(t, "complete:stop")
	require.Equal(t, "plan:plan_run0001:2", rec2.list()[0], "plan.update before any model output")
	require.Equal(t, "completed", rec2.plans[0][0].Status)
	require.Equal(t, "init", rec2.plans[0][1].Status)
	require.Equal(t, []string{"task.start:" + ids[1].TaskID + ":Second", "task.complete:" + ids[1].TaskID}, rec2.filter("task."))
	require.Equal(t, "plan:plan_run0001:2", rec2.filter("plan:")[1])

	rec3, _ := e.run("a", "new")
	require.Equal(t, "plan:plan_run0003:2", rec3.filter("plan:")[0])
	s4 := e.spec("a", "continue, but nothing is open")
	s4.ContinuePlan = true
	rec4 := e.recorder(s4)
	require.NoError(t, rec4.drain(e.eng.Run(context.Background(), s4)))
	require.Equal(t, "plan:plan_run0003:2", rec4.list()[0], "run 3's plan still has an init task")
}

// Row 59: _plan_get_tasks_ (when configured) answers the plan id, the task
// lines and the current task.
func TestPlanGetTasks(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": `{"key": "a", "name": "Pe", "mode": "PLAN_EXECUTE",
		"modelConfig": {"modelKey": "m1"}, "planExecute": {"plan": {"systemPrompt": "You plan."},
		"execute": {"systemPrompt": "You execute.", "toolConfig": {"backends": ["_plan_get_tasks_"]}},
		"summary": {"systemPrompt": "You summarise."}}}`})
	e.provide(planOracle(twoTasks, func(req *llm.Request, id string, n int) llmtest.Reply {
		return llmtest.Calls(call(fmt.Sprint("g", n), agentdef.PlanGetTasks, `{}`),
			call(fmt.Sprint("u", n), agentdef.PlanUpdateTask, `{"taskId":"`+id+`","status":"completed"}`))
	}))
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	ids := rec.plans[0]
	require.Equal(t, "result:g2:Plan ID: plan_run0001\n"+ids[0].TaskID+" | init | First\n"+ids[1].TaskID+" | init | Second\n"+
		"Current taskId: "+ids[0].TaskID, rec.filter("result:g2")[0])
}

// Row 58, § 6.5: the plan tools' argument checks and error texts.
func TestPlanToolErrors(t *testing.T) {
	r := &run{plan: &plan{id: "plan_x"}}
	cases := []struct {
		fn   func(context.Context, *run, string) (outcome, error)
		args string
		want string
	}{
		{planAddTasks, `{"tasks":[{"description":"a","status":"done"}]}`, errInvalidStatus},
		{planAddTasks, `{"tasks":[{"description":"a"},{"description":" "}]}`, errDescriptionRequired},
		{planAddTasks, `{}`, errDescriptionRequired},
		{planUpdateTask, `{"status":"completed"}`, errTaskIDRequired},
		{planUpdateTask, `{"taskId":"abc","status":"in_progress"}`, errInvalidStatus},
		{planUpdateTask, `{"taskId":"abc","status":"completed"}`, "Error: unknown taskId: abc"},
		{planGetTasks, ``, "Plan ID: plan_x\nCurrent taskId: none"},
	}
	for _, c := range cases {
		out, err := c.fn(context.Background(), r, c.args)
		require.NoError(t, err)
		require.Equal(t, c.want, out.text, c.args)
		require.False(t, out.planChanged)
	}
	require.Empty(t, r.plan.tasks, "a rejected call adds nothing")
	out, _ := planAddTasks(context.Background(), r, `{"taskId":"mine","description":"Single","status":"completed"}`)
	require.Regexp(t, `^[0-9a-f]{8} \| completed \| Single$`, out.text)
	require.True(t, out.planChanged)
	out, _ = planUpdateTask(context.Background(), r, `{"taskId":"`+r.plan.tasks[0].TaskID+`","status":"completed"}`)
	require.Equal(t, "OK", out.text)
	require.False(t, out.planChanged, "nothing changed")
}
