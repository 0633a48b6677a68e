package agent

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// Row 48 (no tools), rows 26/27: one provider call without tools or
// tool_choice; each upstream delta is forwarded once, reasoning first.
func TestOneshotWithoutTools(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a"`)})
	p := scripted(llmtest.Join(llmtest.Reasoning("think"), llmtest.Chunks("Hel", "lo")))
	e.provide(p)
	rec, _ := e.run("a", "hi")
	require.Equal(t, []string{"reasoning:think", "content:Hel", "content:lo", "turn", "complete:stop"}, rec.list())
	reqs := p.Requests()
	require.Len(t, reqs, 1)
	require.Empty(t, reqs[0].Tools)
	require.Zero(t, reqs[0].ToolChoice)
	require.Nil(t, reqs[0].ParallelToolCalls)
	require.Equal(t, "id-m1", reqs[0].Model)
	require.Equal(t, []llm.Message{{Role: llm.RoleSystem, Content: "You answer."}, {Role: llm.RoleUser, Content: "hi"}},
		reqs[0].Messages)
}

// Row 48 (with tools), rows 31/54: a tool turn with tool_choice auto and
// parallel_tool_calls false, all calls executed in order after the turn,
// then a final turn without tools.
func TestOneshotWithTools(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo", "today"]},
		"modelConfig": {"modelKey": "m1", "temperature": 0.5, "top_p": 0.9, "max_tokens": 100,
			"reasoning": {"enabled": true, "effort": "HIGH"}}`)})
	p := scripted(llmtest.Calls(call("c1", "echo", `{"a":1}`), call("c2", "Today", `{}`)), llmtest.Text("done"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	require.Equal(t, []string{
		"start:c1:echo:backend", `args:c1:{"a":1}`, "end:c1", "start:c2:Today:backend", "args:c2:{}", "end:c2", "turn",
		`result:c1:echo:{"a":1}`, `result:c2:{"date":"2024-01-31","at":"2024-02-28T10:00:00Z","n":5,"list":[{"x":"y"}]}`,
		"content:done", "turn", "complete:stop",
	}, rec.list())
	reqs := p.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{"echo", "today"}, toolNames(reqs[0]))
	require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceAuto}, reqs[0].ToolChoice)
	require.NotNil(t, reqs[0].ParallelToolCalls)
	require.False(t, *reqs[0].ParallelToolCalls)
	require.Equal(t, 0.5, *reqs[0].Temperature)
	require.Equal(t, 0.9, *reqs[0].TopP)
	require.Equal(t, 100, reqs[0].MaxOutputTokens)
	require.Equal(t, &llm.ReasoningConfig{Effort: "high"}, reqs[0].Reasoning)
	require.Contains(t, reqs[0].Messages[0].Content, "Tool notes:\n- echo: Go tool echo.\n- today: Go tool today.")
	require.Empty(t, reqs[1].Tools)
	require.Zero(t, reqs[1].ToolChoice)
	require.Nil(t, reqs[1].ParallelToolCalls)
	require.Equal(t, []string{`c1=echo:{"a":1}`, `c2={"date":"2024-01-31","at":"2024-02-28T10:00:00Z","n":5,"list":[{"x":"y"}]}`},
		toolMsgs(reqs[1]))
	require.Len(t, reqs[1].Messages[2].ToolCalls, 2, "the calls go back as one assistant message")
}

// Row 49: ONESHOT REQUIRED without calls: two repair turns with identical
// messages, then run.error tool_call_required.
func TestOneshotRequiredRepairs(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolChoice": "REQUIRED",
		"toolConfig": {"backends": ["echo"]}`)})
	p := scripted(llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c"), llmtest.Text("never"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "fail:tool_call_required")
	require.False(t, rec.info.Retriable)
	reqs := p.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, reqs[0].Messages, reqs[1].Messages)
	require.Equal(t, reqs[0].Messages, reqs[2].Messages)
	require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceRequired}, reqs[2].ToolChoice)
}

// Row 34: a call to a disabled or unknown tool gets one tool.result with
// code tool_not_enabled naming the tools the turn offers (tool.NotEnabled);
// the stream shows it as an unknown function call.
func TestToolNotEnabled(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo"]}`)})
	p := scripted(llmtest.Calls(call("c1", "Nope", `{}`), call("c2", "today", `{}`)), llmtest.Text("ok"))
	e.provide(p)
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	require.Equal(t, []string{
		"result:c1:" + errJSON("Nope", "tool_not_enabled", "Tool is not enabled for this agent: Nope. The tools are: echo. Call one of them by its exact name."),
		"result:c2:" + errJSON("today", "tool_not_enabled", "Tool is not enabled for this agent: today. The tools are: echo. Call one of them by its exact name."),
	}, rec.filter("result:"))
	require.Equal(t, `{"tool":"Nope","ok":false,"code":"tool_not_enabled","error":"Tool is not enabled for this agent: Nope"}`,
		errJSON("Nope", "tool_not_enabled", "Tool is not enabled for this agent: Nope"))
	require.Equal(t, CallUnknown, rec.calls["c1"].Kind)
	require.Equal(t, ToolTypeFunction, rec.calls["c1"].ToolType)
	require.Zero(t, e.tools["today"].calls())
}

// Row 37: an action streams start/args/end and the result "OK" at once;
// its actionId is the tool_call_id, the model receives OK, and memory
// stores _actionId.
func TestAction(t *testing.T) {
	e := newEnv(t, map[string]string{
		"agents/a.json":   oneshot(`"key": "a", "toolConfig": {"actions": ["open_panel"]}`),
		"tools/ui.action": `{"tools":[{"type":"function","name":"open_panel","description":"Opens a panel."}]}`,
	})
	p := scripted(llmtest.Calls(call("call_a", "open_panel", `{"p":1}`)), llmtest.Text("opened"))
	e.provide(p)
	rec, s := e.run("a", "open")
	require.Equal(t, []string{"start:call_a:open_panel:action", `args:call_a:{"p":1}`, "end:call_a", "turn",
		"action:call_a:OK", "content:opened", "turn", "complete:stop"}, rec.list())
	require.Equal(t, "Opens a panel.", rec.calls["call_a"].Description)
	require.Equal(t, []string{"call_a=OK"}, toolMsgs(p.Requests()[1]))
	msgs := e.messages(s.RunID)
	require.Equal(t, "call_a", msgs[1]["_actionId"])
	require.Nil(t, msgs[1]["_toolId"])
	require.Equal(t, "tool", msgs[2]["role"])
	require.Equal(t, "call_a", msgs[2]["_actionId"])
	require.Equal(t, "call_a", msgs[2]["tool_call_id"])
}

// Rows 29, 33, § 1.3: a call without a provider id (or with an id the run
// already used) gets call_native_{k} (k counted per run); text after a call of the same turn is dropped
// (neither streamed nor stored); argument fragments are forwarded raw.
func TestNativeCallIDsAndDroppedText(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": react(`"key": "a", "toolConfig": {"backends": ["echo"]}`)})
	noID := func(args ...string) llmtest.Reply {
		r := llmtest.Reply{Events: []llm.Event{{Kind: llm.EventToolCallStart, Call: &llm.ToolCall{Name: "echo"}}}}
		for _, a := range args {
			r.Events = append(r.Events, llm.Event{Kind: llm.EventToolCallDelta, Text: a})
		}
		r.Events = append(r.Events, llm.Event{Kind: llm.EventTextDelta, Text: "dropped"},
			llm.Event{Kind: llm.EventToolCallEnd, Call: &llm.ToolCall{Name: "echo", Arguments: "{}"}})
		return r
	}
	p := scripted(noID("{", "", "}"), noID(), llmtest.Calls(call("call_native_1", "echo", `{"x":1}`)), llmtest.Text("fin"))
	e.provide(p)
	rec, s := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	require.Equal(t, []string{"start:call_native_1:echo:backend", "args:call_native_1:{", "args:call_native_1:}",
		"end:call_native_1", "turn", "result:call_native_1:echo:{}",
		"start:call_native_2:echo:backend", "args:call_native_2:{}", "end:call_native_2", "turn",
		"result:call_native_2:echo:{}",
		"start:call_native_3:echo:backend", `args:call_native_3:{"x":1}`, "end:call_native_3", "turn",
		`result:call_native_3:echo:{"x":1}`, "content:fin", "turn", "complete:stop"}, rec.list())
	for _, m := range e.messages(s.RunID) {
		require.NotContains(t, fmt.Sprint(m), "dropped")
	}
}

// Row 62, § 5.1: stored messages carry the live ids: _reasoningId and
// _contentId counted per run per kind like the assembler's blocks,
// _toolId = tool_call_id, one _msgId per model reply and a fresh one after
// each tool result; tool_calls hold one call each.
func TestStoredIDs(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo"]}`)})
	turn1 := llmtest.Join(llmtest.Reasoning("r1"), llmtest.Text("c1"),
		llmtest.Calls(call("t1", "echo", `{}`), call("t2", "echo", `{"b":2}`))).WithUsage(llm.Usage{InputTokens: 7, OutputTokens: 3})
	p := scripted(turn1, llmtest.Join(llmtest.Reasoning("r2"), llmtest.Text("final")))
	e.provide(p)
	rec, s := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	msgs := e.messages(s.RunID)
	require.Len(t, msgs, 9)
	msgID := regexp.MustCompile(`^m_[0-9a-f]{8}$`)
	for _, m := range msgs {
		require.Regexp(t, msgID, m["_msgId"])
		require.Equal(t, m["_msgId"], m["@msgId"])
		require.Equal(t, "oneshot", m["@stage"])
	}
	user, r1, c1, call1, call2, res1, res2 := msgs[0], msgs[1], msgs[2], msgs[3], msgs[4], msgs[5], msgs[6]
	require.Equal(t, []any{map[string]any{"type": "text", "text": "go"}}, user["content"])
	require.Equal(t, "run0001_r_1", r1["_reasoningId"])
	require.Equal(t, []any{map[string]any{"type": "text", "text": "r1"}}, r1["reasoning_content"])
	require.Nil(t, r1["content"])
	require.Equal(t, "run0001_c_1", c1["_contentId"])
	require.Equal(t, map[string]any{"prompt_tokens": 7.0, "completion_tokens": 3.0, "total_tokens": 10.0, "cached_tokens": 0.0},
		c1["_usage"])
	require.Equal(t, "t1", call1["_toolId"])
	require.Len(t, call1["tool_calls"], 1)
	require.Equal(t, "t2", call2["_toolId"])
	for _, m := range []map[string]any{c1, call1, call2} {
		require.Equal(t, r1["_msgId"], m["_msgId"], "one reply, one _msgId")
	}
	require.Equal(t, "t1", res1["tool_call_id"])
	require.Equal(t, "t1", res1["_toolId"])
	require.Equal(t, "echo", res1["name"])
	require.NotEqual(t, r1["_msgId"], res1["_msgId"])
	require.NotEqual(t, res1["_msgId"], res2["_msgId"])
	r2, final := msgs[7], msgs[8]
	require.Equal(t, "run0001_r_2", r2["_reasoningId"])
	require.Equal(t, "run0001_c_2", final["_contentId"])
	require.Equal(t, r2["_msgId"], final["_msgId"])
	require.NotEqual(t, res2["_msgId"], final["_msgId"])
	require.Contains(t, final, "_timing")
}

// Rows 84/32, § 3.3 rule 5: a backend tool's applied edits are emitted as
// document.edit between the call's end and its result; the tool sees its
// call id in the context.
func TestDocumentEditsBeforeResult(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["editor"]}`)})
	e.provide(scripted(llmtest.Calls(call("e1", "editor", `{}`)), llmtest.Text("ok")))
	rec, _ := e.run("a", "edit")
	require.Equal(t, []string{"start:e1:editor:backend", "args:e1:{}", "end:e1", "turn",
		"edit:e1:replace:3:1.p1:1", "edit:e1:delete:4:1.p2:2", "result:e1:edited e1", "content:ok", "turn", "complete:stop"},
		rec.list())
}
