package agent

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// frontendFiles define the frontend tools pick_date (html viewport form)
// and grid (qlc viewport grid), and an agent using them with echo.
func frontendFiles(budget string) map[string]string {
	return map[string]string{
		"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo"], "frontends": ["pick_date", "grid"]}` +
			comma(budget)),
		"tools/form.frontend": `{"tools":[{"type":"function","name":"pick_date","description":"Pick a date.",` +
			`"toolApi":"/api/pick"}]}`,
		"tools/grid.frontend": `{"tools":[{"type":"function","name":"grid","description":"Edit a grid."}]}`,
		"viewports/form.html": "<html></html>",
		"viewports/grid.qlc":  `{"kind":"grid"}`,
	}
}

// startAsync executes a run of agent "a" in a goroutine; the returned
// function waits for its end.
func (e *env) startAsync(ctx context.Context) (*recorder, Spec, func()) {
	e.t.Helper()
	s := e.spec("a", "go")
	rec := e.recorder(s)
	done := make(chan error, 1)
	go func() { done <- rec.drain(e.eng.Run(ctx, s)) }()
	return rec, s, func() {
		e.t.Helper()
		select {
		case err := <-done:
			require.NoError(e.t, err)
		case <-time.After(waitLong):
			e.t.Fatal("Execute did not return")
		}
	}
}

// submitWhenPending submits payload as soon as the wait is registered.
func (e *env) submitWhenPending(runID, toolID, payload string) {
	e.t.Helper()
	require.Eventually(e.t, func() bool { return e.submit(runID, toolID, payload) }, waitLong, tick)
}

// Rows 38, 39, 43, § 4.1: a frontend tool.start carries toolType
// html|qlc, toolKey and toolTimeout; a matching submit emits
// request.submit then tool.result = the params JSON, which the model gets;
// a wait longer than runTimeoutMs does not cause run_timeout.
func TestFrontendSubmit(t *testing.T) {
	// In a bubble: the 200 ms wait takes no real time, and no timer of the run
	// fires early or late (the run's clock is the bubble's).
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, frontendFiles(`"budget": {"runTimeoutMs": 100}`))
		p := scripted(llmtest.Calls(call("f1", "pick_date", `{}`), call("f2", "grid", `{}`)), llmtest.Text("thanks"))
		e.provide(p)
		rec, s, wait := e.startAsync(context.Background())
		e.submitWhenPending(s.RunID, "f1", `{"date":"2024-05-01"}`)
		require.Eventually(t, func() bool { return e.pending(s.RunID, "f2") }, waitLong, tick)
		time.Sleep(200 * time.Millisecond) // longer than runTimeoutMs (virtual time): the wait does not count
		e.submitWhenPending(s.RunID, "f2", `[1,2]`)
		wait()
		rec.requireTerminal(t, "complete:stop")
		require.Equal(t, []string{"start:f1:pick_date:frontend", "args:f1:{}", "end:f1", "start:f2:grid:frontend",
			"args:f2:{}", "end:f2", "turn", `submit:f1:{"date":"2024-05-01"}`, `result:f1:{"date":"2024-05-01"}`,
			"submit:f2:[1,2]", "result:f2:[1,2]", "content:thanks", "turn", "complete:stop"}, rec.list())
		require.Equal(t, Call{ID: "f1", Name: "pick_date", Kind: CallFrontend, ToolType: ToolTypeHTML, ToolAPI: "/api/pick",
			Description: "Pick a date.", ToolKey: "form", ToolTimeout: 1000}, rec.calls["f1"])
		require.Equal(t, ToolTypeQLC, rec.calls["f2"].ToolType)
		require.Equal(t, "grid", rec.calls["f2"].ToolKey)
		require.Equal(t, []string{`f1={"date":"2024-05-01"}`, "f2=[1,2]"}, toolMsgs(p.Requests()[1]))
		require.False(t, e.submit(s.RunID, "f1", `{}`), "an answered wait is unmatched")
	})
}

// Row 42, § 4.1 step 5: submit timeout → tool.result
// frontend_submit_timeout, the remaining calls of the turn skipped, then
// run.complete timeout; no further model call.
func TestFrontendTimeout(t *testing.T) {
	e := newEnv(t, frontendFiles(""))
	e.eng.FrontendTimeout = 20 * time.Millisecond
	p := scripted(llmtest.Calls(call("f1", "pick_date", `{}`), call("c2", "echo", `{}`), call("f3", "grid", `{}`)),
		llmtest.Text("never"))
	e.provide(p)
	rec, s := e.run("a", "go")
	require.Equal(t, []string{
		"result:f1:" + `{"tool":"pick_date","ok":false,"code":"frontend_submit_timeout",` +
			`"error":"Frontend tool submit timeout runId=` + s.RunID + `, toolId=f1"}`,
		"result:c2:" + errJSON("echo", "skipped", "Not executed: a frontend tool timed out"),
		"result:f3:" + errJSON("grid", "skipped", "Not executed: a frontend tool timed out"),
		"complete:timeout"}, rec.list()[len(rec.list())-4:])
	require.False(t, e.submit(s.RunID, "f3", `{}`), "a skipped call's wait is dropped")
	require.Equal(t, 20, int(rec.calls["f1"].ToolTimeout))
	require.Len(t, p.Requests(), 1)
	require.Zero(t, e.tools["echo"].calls())
	require.False(t, e.submit(s.RunID, "f1", `{}`), "a timed-out wait is unmatched")
}

// § 4.1: a submit arriving right after tool.end, before the call's
// execution slot, is accepted and answers the call.
func TestFrontendEarlySubmit(t *testing.T) {
	e := newEnv(t, frontendFiles(""))
	e.provide(scripted(llmtest.Calls(call("f1", "pick_date", `{}`)), llmtest.Text("ok")))
	s := e.spec("a", "go")
	rec := e.recorder(s)
	accepted := false
	for ev, err := range e.eng.Run(context.Background(), s) {
		require.NoError(t, err)
		e.waits.Open(s.RunID, ev) // as the server does before a client sees the event
		rec.take(ev)
		if ev.Type == ToolEnd { // as a fast client would
			accepted = e.submit(s.RunID, ev.ToolID, `{"ok":true}`)
		}
	}
	require.True(t, accepted)
	require.Equal(t, []string{"end:f1", "turn", `submit:f1:{"ok":true}`, `result:f1:{"ok":true}`, "content:ok", "turn",
		"complete:stop"}, rec.list()[2:])
}

// A canceled run stops waiting at once with run_aborted and drops its wait.
func TestFrontendCancel(t *testing.T) {
	e := newEnv(t, frontendFiles(""))
	e.provide(scripted(llmtest.Calls(call("f1", "pick_date", `{}`))))
	ctx, cancel := context.WithCancel(context.Background())
	rec, s, wait := e.startAsync(ctx)
	require.Eventually(t, func() bool { return e.pending(s.RunID, "f1") }, waitLong, tick)
	cancel()
	wait()
	rec.requireTerminal(t, "fail:run_aborted")
	require.False(t, e.submit(s.RunID, "f1", `{}`))
}
