package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/tool"
)

// Row 36: a backend runtime failure (Go error or tool_failed result) is
// retried tool.retryCount times, invalid_arguments never; a timeout yields
// tool_timeout (after its retries) and the run goes on.
func TestBackendRetriesAndTimeout(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a",
		"toolConfig": {"backends": ["flaky", "badargs", "slow", "boom"]},
		"budget": {"tool": {"retryCount": 2, "timeoutMs": 30}}`)})
	e.tools["flaky"] = &fnTool{name: "flaky", fn: func(_ context.Context, n int, _ json.RawMessage) (tool.Result, error) {
		switch n {
		case 1:
			return tool.Result{}, errors.New("disk hiccup")
		case 2:
			return tool.Errorf("tool_failed", "still broken"), nil
		}
		return tool.Result{Text: "fine"}, nil
	}}
	e.tools["badargs"] = &fnTool{name: "badargs", fn: func(context.Context, int, json.RawMessage) (tool.Result, error) {
		return tool.Errorf("invalid_arguments", "bad"), nil
	}}
	e.tools["slow"] = &fnTool{name: "slow", fn: func(ctx context.Context, _ int, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, ctx.Err()
	}}
	e.tools["boom"] = &fnTool{name: "boom", fn: func(context.Context, int, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, errors.New("exploded")
	}}
	p := scripted(llmtest.Calls(call("c1", "flaky", `{}`), call("c2", "badargs", `{}`), call("c3", "slow", `{}`),
		call("c4", "boom", `{}`)), llmtest.Text("done"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	require.Equal(t, []string{
		"result:c1:fine",
		"result:c2:" + errJSON("badargs", "invalid_arguments", "bad"),
		"result:c3:" + errJSON("slow", "tool_timeout", "Tool slow timed out after 30 ms"),
		"result:c4:" + errJSON("boom", "tool_failed", "exploded"),
	}, rec.filter("result:"))
	require.Equal(t, 3, e.tools["flaky"].calls())
	require.Equal(t, 1, e.tools["badargs"].calls())
	require.Equal(t, 3, e.tools["slow"].calls())
	require.Equal(t, 3, e.tools["boom"].calls())
	require.Len(t, p.Requests(), 2)
}

// Row 45 (model): model.maxCalls exceeded → run.error budget_exceeded and
// nothing after it.
func TestModelBudget(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": react(`"key": "a", "toolConfig": {"backends": ["echo"]},
		"budget": {"model": {"maxCalls": 2}}`)})
	p := scripted(llmtest.Calls(call("c1", "echo", `{}`)), llmtest.Calls(call("c2", "echo", `{}`)), llmtest.Text("late"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "fail:budget_exceeded")
	require.Equal(t, "Budget exceeded: model.maxCalls=2", rec.info.Message)
	require.False(t, rec.info.Retriable)
	require.Len(t, p.Requests(), 2)
}

// Row 45 (tools), § 3.3 rule 6: tool.maxCalls reached → the remaining
// calls get skipped results, then run.error budget_exceeded.
func TestToolBudget(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo"]},
		"budget": {"tool": {"maxCalls": 1}}`)})
	e.provide(scripted(llmtest.Calls(call("c1", "echo", `{}`), call("c2", "echo", `{}`), call("c3", "echo", `{}`))))
	rec, _ := e.run("a", "go")
	skipped := errJSON("echo", "skipped", "Not executed: the run failed (budget_exceeded)")
	require.Equal(t, []string{"turn", "result:c1:echo:{}", "result:c2:" + skipped, "result:c3:" + skipped,
		"fail:budget_exceeded"}, rec.list()[9:])
	require.Equal(t, "Budget exceeded: tool.maxCalls=1", rec.info.Message)
	require.Equal(t, 1, len(e.tools["echo"].received()))
}

// Row 47: a stream failing after a call opened: the turn's blocks and
// calls are closed and the call gets a skipped result before run.error.
func TestStreamErrorClosesCalls(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo"]}`)})
	broken := llmtest.Reply{Events: []llm.Event{
		{Kind: llm.EventTextDelta, Text: "hi"},
		{Kind: llm.EventToolCallStart, Call: &llm.ToolCall{ID: "c1", Name: "echo"}},
		{Kind: llm.EventToolCallDelta, Text: "{"},
	}, Err: &llm.Error{Kind: llm.Protocol, Message: "broken stream"}}
	e.provide(scripted(broken))
	rec, _ := e.run("a", "go")
	require.Equal(t, []string{"content:hi", "start:c1:echo:backend", "args:c1:{", "turn",
		"result:c1:" + errJSON("echo", "skipped", "Not executed: the run failed (model_error)"), "fail:model_error"},
		rec.list())
	require.False(t, rec.info.Retriable)
}

// Row 44, § 3.5, § 6.3: provider errors end the run with model_error,
// retriable for 5xx and 429; one transparent reconnect (not counted
// against model.maxCalls) when the provider fails before the first event.
func TestModelErrors(t *testing.T) {
	agent := map[string]string{"agents/a.json": oneshot(`"key": "a", "budget": {"model": {"maxCalls": 1}}`)}
	err500 := &llm.Error{Kind: llm.Server, Status: 500, Message: "upstream down"}
	cases := []struct {
		name      string
		replies   []llmtest.Reply
		want      string
		retriable bool
		requests  int
	}{
		{"5xx twice", []llmtest.Reply{llmtest.Fail(err500), llmtest.Fail(err500)}, "fail:model_error", true, 2},
		{"429 then ok", []llmtest.Reply{llmtest.Fail(&llm.Error{Kind: llm.RateLimited, Status: 429}), llmtest.Text("ok")},
			"complete:stop", false, 2},
		{"400", []llmtest.Reply{llmtest.Fail(&llm.Error{Kind: llm.BadRequest, Status: 400}), llmtest.Text("no")},
			"fail:model_error", false, 1},
		{"503 mid-stream", []llmtest.Reply{llmtest.Chunks("a", "b").FailAfter(1, &llm.Error{Kind: llm.Server, Status: 503}),
			llmtest.Text("no")}, "fail:model_error", true, 1},
		{"plain error", []llmtest.Reply{llmtest.Fail(errors.New("weird")), llmtest.Text("no")}, "fail:model_error", false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, agent)
			p := scripted(c.replies...)
			e.provide(p)
			rec, _ := e.run("a", "go")
			rec.requireTerminal(t, c.want)
			require.Len(t, p.Requests(), c.requests)
			if rec.info != nil {
				require.Equal(t, c.retriable, rec.info.Retriable)
			}
		})
	}
}

// § 3.5: a model call longer than budget.model.timeoutMs is a retriable
// model_error, without a reconnect.
func TestModelCallTimeout(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "budget": {"model": {"timeoutMs": 20}}`)})
	p := scripted(llmtest.Timeout(), llmtest.Text("never"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "fail:model_error")
	require.True(t, rec.info.Retriable)
	require.Equal(t, "Model call timeout: budget.model.timeoutMs=20", rec.info.Message)
	require.Len(t, p.Requests(), 1)
}

// § 3.5: budget.runTimeoutMs reached → run.error run_timeout, retriable.
func TestRunTimeout(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "budget": {"runTimeoutMs": 30}`)})
	e.provide(scripted(llmtest.Timeout()))
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "fail:run_timeout")
	require.True(t, rec.info.Retriable)
	require.Equal(t, "Run timeout: budget.runTimeoutMs=30", rec.info.Message)
}

// Canceling the run's context ends the run promptly with run_aborted; a
// running tool is interrupted and its call gets a skipped result.
func TestCancellation(t *testing.T) {
	t.Run("during a model call", func(t *testing.T) {
		e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a"`)})
		p := scripted(llmtest.Timeout())
		e.provide(p)
		rec := e.runAsync(func() { require.Eventually(t, func() bool { return len(p.Requests()) == 1 }, waitLong, tick) })
		rec.requireTerminal(t, "fail:run_aborted")
		require.True(t, rec.info.Retriable)
	})
	t.Run("during a tool", func(t *testing.T) {
		e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["slow"]}`)})
		started := make(chan struct{})
		e.tools["slow"] = &fnTool{name: "slow", fn: func(ctx context.Context, _ int, _ json.RawMessage) (tool.Result, error) {
			close(started)
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		}}
		e.provide(scripted(llmtest.Calls(call("c1", "slow", `{}`))))
		rec := e.runAsync(func() { <-started })
		require.Equal(t, []string{"result:c1:" + errJSON("slow", "skipped", "Not executed: the run failed (run_aborted)"),
			"fail:run_aborted"}, rec.list()[len(rec.list())-2:])
	})
}

// Argument templates (§ 7.1): a whole-string {{tool.field}} (optionally
// ±Nd) becomes that field of the tool's latest earlier result, dates
// shifted; an unresolvable template is invalid_arguments.
func TestArgumentTemplates(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": react(`"key": "a", "toolConfig": {"backends": ["today", "echo"]}`)})
	args := `{"d":"{{today.date+1d}}","t":"{{ today.at }}-2d","n":"{{today.n}}","x":["{{today.list.0.x}}"],` +
		`"keep":"plain {{today.n}}","same":"{{today.date}}"}`
	p := scripted(llmtest.Calls(call("c1", "today", `{}`)), llmtest.Calls(call("c2", "echo", args)),
		llmtest.Calls(call("c3", "echo", `{"d":"{{nope.x}}"}`)), llmtest.Text("done"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	require.Equal(t, []string{`{"d":"2024-02-01","keep":"plain {{today.n}}","n":5,"same":"2024-01-31",` +
		`"t":"2024-02-26T10:00:00Z","x":["y"]}`}, e.tools["echo"].received())
	require.Equal(t, "result:c3:"+errJSON("echo", "invalid_arguments",
		"argument template {{nope.x}}: no earlier result of tool nope in this run"), rec.filter("result:c3")[0])
	require.Contains(t, rec.list(), "args:c2:"+args, "the stream shows the model's arguments")
}

func TestShiftDate(t *testing.T) {
	cases := map[string]string{"2024-02-28": "2024-03-01", "2023-12-31T23:30:00+02:00": "2024-01-02T23:30:00+02:00",
		"soon": "soon", "2024-13-01": "2024-13-01"}
	for in, want := range cases {
		require.Equal(t, want, shiftDate(in, 2), in)
	}
}
