package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/store/memory"
	"github.com/aitexteditor/aite/internal/tool"
)

// TestMain fails the package if a test leaves goroutines behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A consumer that stops reading stops the run: nothing more is emitted
// and no tool runs.
func TestConsumerStops(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo"]}`)})
	e.provide(scripted(llmtest.Calls(call("c1", "echo", `{}`), call("c2", "echo", `{}`)), llmtest.Text("never")))
	rec := newRecorder()
	for ev, err := range e.eng.Run(context.Background(), e.spec("a", "go")) {
		require.NoError(t, err)
		rec.take(ev)
		if ev.Type == ToolStart {
			break
		}
	}
	require.Equal(t, []string{"start:c1:echo:backend"}, rec.list())
	require.Zero(t, e.tools["echo"].calls())
}

// A stage's modelConfig picks its own model; a hand-built agent without
// budget or runtime prompts gets the defaults.
func TestStageModelAndDefaults(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": `{"key": "a", "name": "One", "mode": "ONESHOT",
		"modelConfig": {"modelKey": "m1"}, "plain": {"systemPrompt": "p", "modelConfig": {"modelKey": "m2"}}}`})
	p1, p2 := scripted(), scripted(llmtest.Text("from m2"))
	e.provide(p1, p2)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	require.Empty(t, p1.Requests())
	require.Equal(t, "id-m2", p2.Requests()[0].Model)

	s := e.spec("a", "bare")
	s.Agent = agentdef.AgentDef{Key: "bare", Mode: agentdef.ModeOneshot,
		Plain: &agentdef.Stage{SystemPrompt: "bare", ModelConfig: agentdef.ModelConfig{ModelKey: "m2"}}}
	p2.Add(llmtest.Text("ok"))
	rec = e.recorder(s)
	require.NoError(t, rec.drain(e.eng.Run(context.Background(), s)))
	rec.requireTerminal(t, "complete:stop")
}

// Run refuses a spec it cannot run before emitting anything.
func TestExecuteBadSpec(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a"`)})
	s := e.spec("a", "go")
	rec := e.recorder(s)
	bad := s
	bad.Defs = nil
	require.Error(t, rec.drain(e.eng.Run(context.Background(), bad)))
	bad = s
	bad.Agent.Plain = nil
	require.Error(t, rec.drain(e.eng.Run(context.Background(), bad)))
	require.Empty(t, rec.list())
}

// Builtins describes the engine's own tools for listings.
func TestBuiltins(t *testing.T) {
	var names []string
	for _, b := range Builtins() {
		names = append(names, b.Name())
		require.NotEmpty(t, b.Description())
		require.NotEmpty(t, b.Parameters())
		res, err := b.Call(context.Background(), nil)
		require.NoError(t, err)
		require.True(t, res.IsError)
	}
	require.Equal(t, []string{agentdef.PlanAddTasks, agentdef.PlanUpdateTask, agentdef.PlanGetTasks, SkillRunScript}, names)
}

// § 7.1, § 6.2 item 4: a tool file describing a Go backend tool overrides
// its description and parameters; its afterCallHint joins the appendix.
func TestBackendToolFile(t *testing.T) {
	e := newEnv(t, map[string]string{
		"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo"]},
			"runtimePrompts": {"toolAppendix": {"afterCallHintTitle": "Afterwards:"}}`),
		"tools/echo.backend": `{"tools":[{"type":"function","name":"echo","description":"File echo.",
			"afterCallHint":"Check the echo.","parameters":{"type":"object","properties":{"s":{"type":"string"}}}}]}`,
	})
	p := scripted(llmtest.Text("no call"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	req := p.Requests()[0]
	require.Equal(t, "File echo.", req.Tools[0].Description)
	require.JSONEq(t, `{"type":"object","properties":{"s":{"type":"string"}}}`, string(req.Tools[0].Parameters))
	require.Equal(t, "You answer.\n\nTool notes:\n- echo: File echo.\n\nAfterwards:\n- echo: Check the echo.",
		req.Messages[0].Content)
}

// § 3.5: a failing store ends the run with internal_error; a panicking
// tool is a Go error of the call (package tool's rule): retried, then a
// tool_failed result, and the run goes on.
func TestInternalErrors(t *testing.T) {
	t.Run("tool panic", func(t *testing.T) {
		e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["boom"]}`)})
		e.tools["boom"] = &fnTool{name: "boom", fn: func(context.Context, int, json.RawMessage) (tool.Result, error) {
			panic("kaboom")
		}}
		e.provide(scripted(llmtest.Calls(call("c1", "boom", `{}`)), llmtest.Text("it broke")))
		rec, _ := e.run("a", "go")
		rec.requireTerminal(t, "complete:stop")
		require.Equal(t, []string{"result:c1:" + errJSON("boom", "tool_failed", "tool boom panicked: kaboom")}, rec.filter("result:"))
	})
	t.Run("store failure", func(t *testing.T) {
		e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a"`)})
		e.provide(scripted(llmtest.Text("hi")))
		s := e.spec("a", "go")
		e.eng.Memory = failingStore{e.st}
		rec := e.recorder(s)
		require.NoError(t, rec.drain(e.eng.Run(context.Background(), s)))
		rec.requireTerminal(t, "fail:internal_error")
	})
}

// failingStore fails every system snapshot.
type failingStore struct{ *memory.Store }

func (failingStore) AppendSystem(context.Context, string, string, json.RawMessage) (bool, error) {
	return false, errors.New("disk full")
}
