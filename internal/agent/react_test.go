package agent

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// stages returns the distinct stages of a run's stored messages, in order.
func (e *env) stages(runID string) []string {
	var out []string
	for _, m := range e.messages(runID) {
		if s := m["@stage"].(string); len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// Row 50: REACT runs a tool step, then answers; a blank step continues
// with nothing injected; past maxSteps one turn without tools, and a blank
// one → no_final_answer.
func TestReact(t *testing.T) {
	files := map[string]string{"agents/a.json": react(`"key": "a", "toolConfig": {"backends": ["echo"]}`)}
	t.Run("tool step then answer", func(t *testing.T) {
		e := newEnv(t, files)
		p := scripted(llmtest.Calls(call("c1", "echo", `{}`)), llmtest.Text("answer"))
		e.provide(p)
		rec, s := e.run("a", "go")
		rec.requireTerminal(t, "complete:stop")
		require.Equal(t, []string{"react-step-1", "react-step-2"}, e.stages(s.RunID))
		require.Equal(t, []string{"c1=echo:{}"}, toolMsgs(p.Requests()[1]))
		require.Equal(t, []string{"echo"}, toolNames(p.Requests()[1]))
	})
	t.Run("blank step", func(t *testing.T) {
		e := newEnv(t, files)
		p := scripted(llmtest.Join(llmtest.Reasoning("hmm"), llmtest.Text(" \n")), llmtest.Text("answer"))
		e.provide(p)
		rec, _ := e.run("a", "go")
		rec.requireTerminal(t, "complete:stop")
		reqs := p.Requests()
		require.Len(t, reqs, 2)
		require.Equal(t, reqs[0].Messages, reqs[1].Messages, "nothing injected")
	})
	t.Run("past maxSteps", func(t *testing.T) {
		e := newEnv(t, files)
		p := scripted(llmtest.Calls(call("c1", "echo", `{}`)), llmtest.Calls(call("c2", "echo", `{}`)),
			llmtest.Calls(call("c3", "echo", `{}`)), llmtest.Empty())
		e.provide(p)
		rec, s := e.run("a", "go")
		rec.requireTerminal(t, "fail:no_final_answer")
		reqs := p.Requests()
		require.Len(t, reqs, 4)
		require.Empty(t, reqs[3].Tools)
		require.Zero(t, reqs[3].ToolChoice)
		require.Equal(t, []string{"c1=echo:{}", "c2=echo:{}", "c3=echo:{}"}, toolMsgs(reqs[3]))
		require.Equal(t, []string{"react-step-1", "react-step-2", "react-step-3"}, e.stages(s.RunID))
	})
	t.Run("past maxSteps, answered", func(t *testing.T) {
		e := newEnv(t, files)
		e.provide(scripted(llmtest.Calls(call("c1", "echo", `{}`)), llmtest.Calls(call("c2", "echo", `{}`)),
			llmtest.Calls(call("c3", "echo", `{}`)), llmtest.Text("done so far")))
		rec, _ := e.run("a", "go")
		rec.requireTerminal(t, "complete:stop")
		require.True(t, rec.outOfSteps, "the model chose tools in every step it could have answered in")
	})
	t.Run("final answer", func(t *testing.T) {
		e := newEnv(t, files)
		p := scripted(llmtest.Text(""), llmtest.Text(""), llmtest.Text(""), llmtest.Text("at last"))
		e.provide(p)
		rec, s := e.run("a", "go")
		rec.requireTerminal(t, "complete:stop")
		require.Equal(t, []string{"react-step-1", "react-final"}, e.stages(s.RunID))
	})
}

// Row 50 with REQUIRED: a step without a call is repaired (identical
// request) up to retryCount times (REACT default 1), then the next step.
func TestReactRequired(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": `{"key": "a", "name": "Re", "mode": "REACT", "toolChoice": "REQUIRED",
		"modelConfig": {"modelKey": "m1"}, "toolConfig": {"backends": ["echo"]},
		"react": {"systemPrompt": "You act.", "maxSteps": 1}}`})
	p := scripted(llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("final"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	reqs := p.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, reqs[0].Messages, reqs[1].Messages)
	require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceRequired}, reqs[1].ToolChoice)
	require.Equal(t, reqs[0].Messages[1:], reqs[2].Messages[1:], "nothing injected before react-final")
	require.Equal(t, "You act.", reqs[2].Messages[0].Content, "no tool appendix in a turn without tools")
	require.Empty(t, reqs[2].Tools)
	require.False(t, rec.outOfSteps, "under REQUIRED the final turn is the normal answer")
}

// Under REQUIRED a model that calls tools in every step (it cannot answer
// there) answers in the final turn: that is not running out of steps.
func TestReactRequiredCallsThenFinal(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": `{"key": "a", "name": "Re", "mode": "REACT", "toolChoice": "REQUIRED",
		"modelConfig": {"modelKey": "m1"}, "toolConfig": {"backends": ["echo"]},
		"react": {"systemPrompt": "You act.", "maxSteps": 2}}`})
	e.provide(scripted(llmtest.Calls(call("c1", "echo", `{}`)), llmtest.Calls(call("c2", "echo", `{}`)), llmtest.Text("final")))
	rec, s := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	require.False(t, rec.outOfSteps)
	require.Equal(t, []string{"react-step-1", "react-step-2", "react-final"}, e.stages(s.RunID))
}
