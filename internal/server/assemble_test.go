package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const (
	testRun  = "mtoewf3u"
	testChat = "3f2b8c1e-7a4d-4e2f-9b1a-0c5d6e7f8a9b"
)

// Hand-built run events.
func reason(s string) agent.Event { return agent.Event{Type: agent.ReasoningDelta, Delta: s} }
func say(s string) agent.Event    { return agent.Event{Type: agent.ContentDelta, Delta: s} }
func start(id, name string) agent.Event {
	return agent.Event{Type: agent.ToolStart, ToolID: id,
		Call: &agent.Call{ID: id, Name: name, Kind: agent.CallBackend, ToolType: agent.ToolTypeFunction}}
}
func args(id, d string) agent.Event {
	return agent.Event{Type: agent.ToolArgs, ToolID: id, Delta: d}
}
func end(id string) agent.Event { return agent.Event{Type: agent.ToolEnd, ToolID: id} }
func result(id, text string) agent.Event {
	return agent.Event{Type: agent.ToolResult, ToolID: id, Result: &agent.Result{Text: text}}
}
func edit(id string, e tool.Edit) agent.Event {
	return agent.Event{Type: agent.DocumentEdit, ToolID: id, Edit: &e}
}
func turnEnd() agent.Event { return agent.Event{Type: agent.TurnEnd} }
func done() agent.Event {
	return agent.Event{Type: agent.RunComplete, End: &agent.End{FinishReason: agent.FinishStop}}
}
func failed(code, m string, retriable bool) agent.Event {
	return agent.Event{Type: agent.RunError, End: &agent.End{Error: &agent.ErrorInfo{Code: code, Message: m, Retriable: retriable}}}
}

// fakeClock starts at a fixed instant and advances 1 ms per reading.
func fakeClock() func() time.Time {
	t := time.UnixMilli(1770863186000)
	return func() time.Time { t = t.Add(time.Millisecond); return t }
}

// newTestAssembler returns an assembler recording into *out, bootstrapped
// as the chat's first run, with a document hook counting revisions.
func newTestAssembler(out *[]api.Event) *Assembler {
	a := NewAssembler(testRun, testChat, fakeClock(), func(e api.Event) { *out = append(*out, e) })
	a.AgentKey = "book"
	rev := 0
	a.EditTarget = func(*tool.Edit) (string, int) { rev++; return "5d0c7a8e-1b2c-4d3e-8f9a-0b1c2d3e4f5a", rev }
	a.Bootstrap(api.RequestQuery{RequestID: testRun, ChatID: testChat, Role: "user", Message: "Fix <the> book & more", AgentKey: "auto"},
		&api.ChatStart{ChatID: testChat, ChatName: "Fix <the> book & more"})
	return a
}

func TestAssemblerGolden(t *testing.T) {
	cases := map[string][]agent.Event{
		"plain_answer": {say("Hel"), say("lo, "), say("wörld 📚"), turnEnd(), done()},
		"reasoning_switch": {reason("Think"), reason("ing"), say("Answer"), reason("More thought"), say("Tail"),
			turnEnd(), done()},
		"react_two_calls": {say("Let me look."), start("call_a", "read"), args("call_a", `{"q":`), args("call_a", `"x"}`),
			end("call_a"), start("call_b", "find"), args("call_b", `{}`), end("call_b"), turnEnd(),
			result("call_a", "text of x"), result("call_b", "found 2"),
			reason("Both done"), say("Done."), turnEnd(), done()},
		"text_after_call_dropped": {say("Checking"), start("call_x", "read"), say("dropped"), reason("dropped too"),
			args("call_x", `{}`), end("call_x"), say("still dropped"), turnEnd(), result("call_x", "ok"),
			say("New turn, new id"), turnEnd(), done()},
		"fail_mid_stream": {say("Let me"), start("call_a", "read"), args("call_a", `{}`), end("call_a"),
			start("call_b", "find"), args("call_b", `{"pa`), failed(agent.CodeModelError, "HTTP 503 from provider", true),
			say("after the end"), done()},
		"fail_open_block": {reason("thinking"), failed(agent.CodeBudgetExceeded, "Budget exceeded: model.maxCalls=15", false)},
		"document_edit": {start("call_e", "edit"), args("call_e", `{"pointer":"3:1.p1"}`), end("call_e"), turnEnd(),
			edit("call_e", tool.Edit{Book: "b.md", Op: "replace", Pointer: "3:1.p1", NewPointer: "7:1.p1", Before: "old", After: "new"}),
			edit("call_e", tool.Edit{Book: "b.md", Op: "delete", Pointer: "4:1.p2", Before: "gone"}),
			result("call_e", "replaced 3:1.p1 with 7:1.p1"), say("Edited."), turnEnd(), done()},
		"empty_deltas": {say(""), reason(""), say("a"), reason(""), say(""), start("call_x", "read"), args("call_x", ""),
			args("call_x", "{}"), args("call_x", ""), end("call_x"), turnEnd(), result("call_x", "r"), reason(""),
			say("b"), turnEnd(), done()},
		"args_after_end": {start("call_a", "read"), args("call_a", "{}"), end("call_a"), args("call_a", "x"),
			turnEnd(), result("call_a", "late"), done()},
		"duplicates_ignored": {start("call_a", "read"), end("call_a"), end("call_a"), turnEnd(),
			result("call_a", "one"), result("call_a", "two"), result("call_zz", "unknown"), done(), done()},
	}
	for name, evs := range cases {
		t.Run(name, func(t *testing.T) {
			var out []api.Event
			a := newTestAssembler(&out)
			for _, e := range evs {
				a.Event(e)
			}
			checkStream(t, out)
			golden(t, name, out)
		})
	}
}

func TestAssemblerSecondRunAndAgentKey(t *testing.T) {
	var out []api.Event
	a := NewAssembler("r2", testChat, fakeClock(), func(e api.Event) { out = append(out, e) })
	a.Bootstrap(api.RequestQuery{RequestID: "q", ChatID: testChat, Role: "user", Message: "again", AgentKey: "book"}, nil)
	a.Event(done())
	want := []string{api.TypeRequestQuery, api.TypeRunStart, api.TypeRunComplete}
	if got := types(out); !slices.Equal(got, want) {
		t.Fatalf("types %v, want %v", got, want)
	}
	if rs := out[1].Payload.(api.RunStart); rs.AgentKey != "book" || rs.RunID != "r2" {
		t.Errorf("run.start %+v", rs)
	}
	if !a.Ended() {
		t.Error("not ended after run.complete")
	}
}

func TestResultTextError(t *testing.T) {
	r := tool.Errorf("", "bad <pointer> & \"more\"")
	want := `{"tool":"edit","ok":false,"code":"tool_failed","error":"bad <pointer> & \"more\""}`
	if got := ResultText("edit", &r); got != want {
		t.Errorf("got %s", got)
	}
}

// TestAssemblerAgentLoop drives the runtime (scripted provider, two tools,
// a call without a provider id, a call to a tool it does not offer)
// through the assembler.
func TestAssemblerAgentLoop(t *testing.T) {
	type p struct {
		Word string `json:"word"`
	}
	read := tool.Must("read", "Reads a word.", func(_ context.Context, in p) (tool.Result, error) {
		return tool.Result{Text: "read " + in.Word}, nil
	})
	change := tool.Must("edit", "Edits a block.", func(_ context.Context, in p) (tool.Result, error) {
		return tool.Result{Text: "edited", Edits: []tool.Edit{{Op: "replace", Pointer: "2:p1", NewPointer: "9:p1", Before: "a", After: in.Word}}}, nil
	})
	native := llm.Event{Kind: llm.EventToolCallStart, Index: 1, Call: &llm.ToolCall{Name: "edit"}} // no id from the provider
	turn1 := llmtest.Join(llmtest.Reasoning("Read, then edit."), llmtest.Calls(llmtest.Call("read", `{"word":"a"}`)))
	turn1.Events = append(turn1.Events[:len(turn1.Events)-1], native,
		llm.Event{Kind: llm.EventToolCallDelta, Index: 1, Text: `{"word":`},
		llm.Event{Kind: llm.EventToolCallDelta, Index: 1, Text: `"b"}`},
		llm.Event{Kind: llm.EventToolCallEnd, Index: 1, Call: &llm.ToolCall{Name: "edit", Arguments: `{"word":"b"}`}},
		turn1.Events[len(turn1.Events)-1])
	turn2 := llmtest.Join(llmtest.Calls(llm.ToolCall{ID: "call_9", Name: "nope", Arguments: "{}"}))
	turn3 := llmtest.Chunks("The ", "book ", "is edited.").WithUsage(llm.Usage{InputTokens: 5, OutputTokens: 3})
	st := memory.New()
	ctx := context.Background()
	require.NoError(t, st.CreateChat(ctx, store.Chat{ID: testChat, Name: "c", CreatedAt: time.Now(), UpdatedAt: time.Now()}))
	require.NoError(t, st.CreateRun(ctx, store.Run{ID: testRun, ChatID: testChat, Status: store.RunRunning, StartedAt: time.Now()}))
	runner := &agent.Runner{Models: scriptedModels{llmtest.NewScripted(turn1, turn2, turn3)}, Memory: st}
	ag := agentdef.AgentDef{Key: "book", Mode: agentdef.ModeReact, React: &agentdef.ReactBlock{Stage: agentdef.Stage{
		ModelConfig: agentdef.ModelConfig{ModelKey: "m"}, ToolConfig: agentdef.ToolConfig{Backends: []string{"read", "edit"}}}}}
	spec := agent.Spec{RunID: testRun, ChatID: testChat, Agent: ag, Defs: &agentdef.Snapshot{}, Message: "Fix the book",
		Tools: map[string]tool.Tool{"read": read, "edit": change}}

	var out []api.Event
	a := newTestAssembler(&out)
	require.NoError(t, a.Run(runner.Run(ctx, spec)))
	checkStream(t, out)
	golden(t, "agent_loop", out)
}

// scriptedModels resolves every model key to one scripted provider.
type scriptedModels struct{ p llm.Provider }

func (m scriptedModels) Provider(key string) (llm.Provider, models.Model, error) {
	return m.p, models.Model{Key: key, ModelID: key, SupportsTools: true}, nil
}

// golden compares the SSE frames of out with testdata/<name>.golden.
func golden(t *testing.T, name string, out []api.Event) {
	t.Helper()
	var buf bytes.Buffer
	for _, e := range out {
		b, err := Frame(e)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from the golden file:\n%s", path, buf.Bytes())
	}
}

// checkStream asserts the § 3.3 invariants on one run's events: bootstrap
// first, seq 1.. step 1, increasing timestamps, at most one open block with
// matching ids, per call one end and one result after it, chunkIndex 0..,
// and exactly one terminal event, last.
func checkStream(t *testing.T, out []api.Event) {
	t.Helper()
	if len(out) < 3 || out[0].Type != api.TypeRequestQuery || out[len(out)-1].Type != api.TypeRunComplete && out[len(out)-1].Type != api.TypeRunError {
		t.Fatalf("bad bootstrap or ending: %v", types(out))
	}
	open := ""
	calls := map[string]*struct{ chunks, ends, results int }{}
	for i, e := range out {
		if e.Seq != int64(i+1) || i > 0 && e.Timestamp <= out[i-1].Timestamp {
			t.Errorf("event %d: seq %d timestamp %d", i, e.Seq, e.Timestamp)
		}
		if Terminal(e.Type) && i != len(out)-1 {
			t.Errorf("terminal event at %d of %d", i, len(out))
		}
		var f map[string]any
		b, _ := e.MarshalJSON()
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		id, _ := f["toolId"].(string)
		block, _ := f["reasoningId"].(string)
		if block == "" {
			block, _ = f["contentId"].(string)
		}
		switch e.Type {
		case api.TypeReasoningStart, api.TypeContentStart:
			if open != "" {
				t.Errorf("seq %d: %s while %s is open", e.Seq, block, open)
			}
			open = block
		case api.TypeReasoningDelta, api.TypeContentDelta:
			if block != open || f["delta"] == "" {
				t.Errorf("seq %d: delta for %s while %q is open", e.Seq, block, open)
			}
		case api.TypeReasoningEnd, api.TypeContentEnd:
			if block != open {
				t.Errorf("seq %d: end of %s while %q is open", e.Seq, block, open)
			}
			open = ""
		case api.TypeToolStart:
			calls[id] = &struct{ chunks, ends, results int }{}
		case api.TypeToolArgs:
			if c := calls[id]; c == nil || c.ends > 0 || f["chunkIndex"] != float64(c.chunks) {
				t.Errorf("seq %d: bad tool.args", e.Seq)
			} else {
				c.chunks++
			}
		case api.TypeToolEnd:
			calls[id].ends++
		case api.TypeToolResult:
			if c := calls[id]; c == nil || c.ends != 1 {
				t.Errorf("seq %d: result before end", e.Seq)
			} else {
				c.results++
			}
		}
		if open != "" && !isText(e.Type) {
			t.Errorf("seq %d: %s while %s is open", e.Seq, e.Type, open)
		}
	}
	for id, c := range calls {
		if c.ends != 1 || c.results != 1 {
			t.Errorf("call %s: %d ends, %d results", id, c.ends, c.results)
		}
	}
}

func isText(typ string) bool {
	switch typ {
	case api.TypeReasoningStart, api.TypeReasoningDelta, api.TypeContentStart, api.TypeContentDelta:
		return true
	}
	return false
}

func types(out []api.Event) []string {
	s := make([]string, len(out))
	for i, e := range out {
		s[i] = e.Type
	}
	return s
}
