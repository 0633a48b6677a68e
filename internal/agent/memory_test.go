package agent

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
)

// Row 65, § 5.2: after 25 runs the provider sees only the last 20 runs'
// messages (in run order) before the new user message; reasoning is never
// sent back.
func TestMemoryWindow(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a"`)})
	p := llmtest.ScriptedFunc(func(req *llm.Request) llmtest.Reply {
		q := req.LastUserMessage()
		return llmtest.Join(llmtest.Reasoning("think "+q), llmtest.Text("answer "+q))
	})
	e.provide(p)
	for i := 1; i <= 26; i++ {
		rec, _ := e.run("a", fmt.Sprint("q", i))
		rec.requireTerminal(t, "complete:stop")
	}
	reqs := p.Requests()
	last := reqs[25]
	want := []llm.Message{{Role: llm.RoleSystem, Content: "You answer."}}
	for i := 6; i <= 25; i++ {
		want = append(want, llm.Message{Role: llm.RoleUser, Content: fmt.Sprint("q", i)},
			llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprint("answer q", i)})
	}
	want = append(want, llm.Message{Role: llm.RoleUser, Content: "q26"})
	require.Equal(t, want, last.Messages)
	for _, m := range last.Messages {
		require.NotContains(t, m.Content, "think")
		require.Empty(t, m.Reasoning)
	}
	runs, err := e.st.ListRuns(t.Context(), e.chatID)
	require.NoError(t, err)
	require.Len(t, runs, 26, "older runs stay in the store")

	e.eng.MemoryK = 2
	rec, _ := e.run("a", "q27")
	rec.requireTerminal(t, "complete:stop")
	require.Len(t, p.Requests()[26].Messages, 1+4+1)
}

// § 5.2: stored messages convert back to model messages: one assistant
// message per reply (_msgId), tool calls only with their results, results
// only with their calls, reasoning dropped.
func TestHistoryMessages(t *testing.T) {
	bodies := []string{
		`{"role":"user","content":[{"type":"text","text":"q"}],"ts":1}`,
		`{"role":"assistant","reasoning_content":[{"type":"text","text":"hm"}],"_msgId":"m_1"}`,
		`{"role":"assistant","content":[{"type":"text","text":"let me"}],"_msgId":"m_1"}`,
		`{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"echo","arguments":"{}"}}],"_msgId":"m_1"}`,
		`{"role":"assistant","tool_calls":[{"id":"b","type":"function","function":{"name":"echo","arguments":"{\"x\":1}"}}],"_msgId":"m_1"}`,
		`{"role":"assistant","tool_calls":[{"id":"lost","type":"function","function":{"name":"echo","arguments":"{}"}}],"_msgId":"m_1"}`,
		`{"role":"tool","name":"echo","tool_call_id":"a","content":[{"type":"text","text":"ra"}],"_msgId":"m_2"}`,
		`{"role":"tool","name":"echo","tool_call_id":"b","content":[{"type":"text","text":"rb"}],"_msgId":"m_3"}`,
		`{"role":"tool","name":"echo","tool_call_id":"orphan","content":[{"type":"text","text":"x"}],"_msgId":"m_4"}`,
		`{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"echo","arguments":"{}"}}],"_msgId":"m_5"}`,
		`{"role":"assistant","content":[{"type":"text","text":"done"}],"_msgId":"m_6"}`,
		`not json`,
	}
	var msgs []store.Message
	for _, b := range bodies {
		msgs = append(msgs, store.Message{Body: []byte(b)})
	}
	require.Equal(t, []llm.Message{
		{Role: llm.RoleUser, Content: "q"},
		{Role: llm.RoleAssistant, Content: "let me", ToolCalls: []llm.ToolCall{{ID: "a", Name: "echo", Arguments: "{}"},
			{ID: "b", Name: "echo", Arguments: `{"x":1}`}}},
		{Role: llm.RoleTool, ToolCallID: "a", Name: "echo", Content: "ra"},
		{Role: llm.RoleTool, ToolCallID: "b", Name: "echo", Content: "rb"},
		{Role: llm.RoleAssistant, Content: "done"},
	}, historyMessages(msgs))
}

// § 5.1: every model call stores a system snapshot {model, messages,
// tools, stream:true} under its stage.
func TestSystemSnapshots(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a", "toolConfig": {"backends": ["echo"]}`)})
	e.provide(scripted(llmtest.Calls(call("c1", "echo", `{"<":"&"}`)), llmtest.Text("ok")))
	_, s := e.run("a", "go")
	systems, err := e.st.ListSystems(t.Context(), s.RunID)
	require.NoError(t, err)
	require.Len(t, systems, 2)
	require.Equal(t, "oneshot", systems[0].Stage)
	first := string(systems[0].Body)
	require.True(t, strings.HasPrefix(first, `{"model":"id-m1","messages":[{"role":"system","content":"You answer.`), first)
	require.Contains(t, first, `"tools":[{"type":"function","function":{"name":"echo","description":"Go tool echo.",`+
		`"parameters":{"type":"object"}}}],"stream":true}`)
	require.Contains(t, string(systems[1].Body), `"tool_calls":[{"id":"c1","type":"function","function":{"name":"echo",`+
		`"arguments":"{\"<\":\"&\"}"}}]`)
	require.Contains(t, string(systems[1].Body), `{"role":"tool","content":"echo:{\"<\":\"&\"}","tool_call_id":"c1","name":"echo"}`)
	require.NotContains(t, string(systems[1].Body), `"tools"`)
}

// countingMemory counts the memory reads of a run.
type countingMemory struct {
	*memory.Store
	reads atomic.Int32
}

func (m *countingMemory) RecentMessages(ctx context.Context, chatID string, k int) ([]store.Message, error) {
	m.reads.Add(1)
	return m.Store.RecentMessages(ctx, chatID, k)
}

// A run in a new chat (Spec.NewChat) has no memory to read and does not
// read the store for it; a run in a chat with runs before it does.
func TestNewChatReadsNoMemory(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": oneshot(`"key": "a"`)})
	mem := &countingMemory{Store: e.st}
	e.eng.Memory = mem
	e.provide(llmtest.NewScripted(llmtest.Text("one"), llmtest.Text("two")))
	s := e.spec("a", "first")
	s.NewChat = true
	rec := e.recorder(s)
	require.NoError(t, rec.drain(e.eng.Run(t.Context(), s)))
	rec.requireTerminal(t, "complete:stop")
	require.Zero(t, mem.reads.Load(), "a new chat's run read its memory")

	rec, _ = e.run("a", "second")
	rec.requireTerminal(t, "complete:stop")
	require.Equal(t, int32(1), mem.reads.Load())
}
