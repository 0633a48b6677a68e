package agent

import (
	"context"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/stretchr/testify/require"
)

// script is a scripted provider: each call returns the next list of events.
type script struct {
	mu    sync.Mutex
	turns [][]llm.Event
	reqs  []*llm.Request
}

func (s *script) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		s.mu.Lock()
		s.reqs = append(s.reqs, req.Clone())
		var evs []llm.Event
		if len(s.turns) > 0 {
			evs, s.turns = s.turns[0], s.turns[1:]
		}
		s.mu.Unlock()
		for _, e := range evs {
			if e.Kind == "block" {
				<-ctx.Done()
				yield(llm.Event{}, llm.ContextError(ctx))
				return
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}

func text(parts ...string) []llm.Event {
	var out []llm.Event
	for _, p := range parts {
		out = append(out, llm.Event{Kind: llm.EventTextDelta, Text: p})
	}
	return append(out, llm.Event{Kind: llm.EventUsage, Usage: &llm.Usage{InputTokens: 10, OutputTokens: 2}},
		llm.Event{Kind: llm.EventFinish, Finish: llm.FinishStop})
}

func calls(cs ...llm.ToolCall) []llm.Event {
	var out []llm.Event
	for i, c := range cs {
		c := c
		out = append(out, llm.Event{Kind: llm.EventToolCallStart, Index: i, Call: &llm.ToolCall{ID: c.ID, Name: c.Name}},
			llm.Event{Kind: llm.EventToolCallDelta, Index: i, Text: c.Arguments},
			llm.Event{Kind: llm.EventToolCallEnd, Index: i, Call: &c})
	}
	return append(out, llm.Event{Kind: llm.EventFinish, Finish: llm.FinishToolCalls})
}

type echoParams struct {
	Word string `json:"word"`
}

func registry(t *testing.T) *tool.Registry {
	echo := tool.Must("test-echo", "Echoes a word.", func(ctx context.Context, p echoParams) (tool.Result, error) {
		tool.Report(ctx, tool.Progress{Kind: "echo", Message: "echoing"})
		return tool.Result{Text: "echo " + p.Word, Edits: []tool.Edit{{Op: "replace", Pointer: "1:p1"}}}, nil
	})
	r, err := tool.NewRegistry(echo)
	require.NoError(t, err)
	return r
}

func collect(seq iter.Seq[Event]) []Event {
	var out []Event
	for e := range seq {
		out = append(out, e)
	}
	return out
}

func types(evs []Event) string {
	var b []string
	for _, e := range evs {
		b = append(b, string(e.Type))
	}
	return strings.Join(b, " ")
}

func ids() func(string) string {
	n := 0
	return func(p string) string { n++; return p + "_" + string(rune('0'+n)) }
}

func TestPlainAnswerStreamsEveryDelta(t *testing.T) {
	p := &script{turns: [][]llm.Event{text("Hel", "lo", " world")}}
	evs := collect(Config{Provider: p, System: "sys", NewID: ids()}.Run(context.Background(), nil, "hi"))
	require.Equal(t, "run.start message content.delta content.delta content.delta usage message run.complete", types(evs))
	require.Equal(t, "Hel", evs[2].Delta)
	last := evs[len(evs)-1]
	require.Equal(t, Done, last.Ending)
	require.Equal(t, "Hello world", last.Answer)
	require.Equal(t, 10, last.Total.InputTokens)
	require.Equal(t, llm.RoleSystem, p.reqs[0].Messages[0].Role)
	require.Empty(t, p.reqs[0].Tools, "no tools, no tool fields")
}

func TestToolCallsExecuteInOrderWithOneResultEach(t *testing.T) {
	p := &script{turns: [][]llm.Event{
		calls(llm.ToolCall{ID: "c1", Name: "test-echo", Arguments: `{"word":"a"}`},
			llm.ToolCall{ID: "c2", Name: "test-ehco", Arguments: `{"word":"b"}`},
			llm.ToolCall{ID: "c3", Name: "test-echo", Arguments: `{"wrd":1}`}),
		text("done"),
	}}
	evs := collect(Config{Provider: p, Tools: registry(t), NewID: ids()}.Run(context.Background(), nil, "go"))
	require.Equal(t, "run.start message tool.start tool.args tool.end tool.start tool.args tool.end tool.start tool.args tool.end usage message "+
		"tool.progress document.edit tool.result message tool.result message tool.result message "+
		"content.delta usage message run.complete", types(evs))
	var results []*tool.Result
	for _, e := range evs {
		if e.Type == ToolResult {
			results = append(results, e.Result)
		}
	}
	require.Equal(t, "echo a", results[0].Text)
	require.Equal(t, "tool_not_enabled", results[1].Code)
	require.Contains(t, results[1].Text, "test-echo", "the real tools are listed")
	require.Equal(t, "invalid_arguments", results[2].Code)
	// the second request carries the assistant turn and the three results in order
	msgs := p.reqs[1].Messages
	require.Equal(t, llm.RoleAssistant, msgs[1].Role)
	require.Len(t, msgs[1].ToolCalls, 3)
	require.Equal(t, []string{"c1", "c2", "c3"}, []string{msgs[2].ToolCallID, msgs[3].ToolCallID, msgs[4].ToolCallID})
	require.NotNil(t, p.reqs[0].ParallelToolCalls)
	require.False(t, *p.reqs[0].ParallelToolCalls)
}

func TestStepLimitEndsWithAFinalTurnWithoutTools(t *testing.T) {
	c := llm.ToolCall{ID: "c", Name: "test-echo", Arguments: `{"word":"x"}`}
	p := &script{turns: [][]llm.Event{calls(c), calls(c), text("final")}}
	evs := collect(Config{Provider: p, Tools: registry(t), MaxSteps: 2, NewID: ids()}.Run(context.Background(), nil, "go"))
	require.Equal(t, Done, evs[len(evs)-1].Ending)
	require.Empty(t, p.reqs[2].Tools, "the final turn has no tools")
	p = &script{turns: [][]llm.Event{calls(c), text("  ")}}
	evs = collect(Config{Provider: p, Tools: registry(t), MaxSteps: 1, NewID: ids()}.Run(context.Background(), nil, "go"))
	require.Equal(t, CodeNoFinalAnswer, evs[len(evs)-1].Error.Code)
}

func TestToolBudget(t *testing.T) {
	c := llm.ToolCall{ID: "c", Name: "test-echo", Arguments: `{"word":"x"}`}
	p := &script{turns: [][]llm.Event{calls(c, llm.ToolCall{ID: "d", Name: "test-echo", Arguments: `{"word":"y"}`})}}
	evs := collect(Config{Provider: p, Tools: registry(t), MaxToolCalls: 1, NewID: ids()}.Run(context.Background(), nil, "go"))
	last := evs[len(evs)-1]
	require.Equal(t, Limit, last.Ending)
	require.Equal(t, CodeBudget, last.Error.Code)
	n := 0
	for _, e := range evs {
		if e.Type == ToolResult {
			n++
		}
	}
	require.Equal(t, 2, n, "the skipped call still gets its result")
}

func TestModelErrorAndCancellation(t *testing.T) {
	p := &script{turns: [][]llm.Event{{{Kind: llm.EventTextDelta, Text: "part"}, {Kind: "block"}}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []Event
	for e := range (Config{Provider: p, NewID: ids()}).Run(ctx, nil, "go") {
		evs = append(evs, e)
		if e.Type == ContentDelta {
			cancel()
		}
	}
	last := evs[len(evs)-1]
	require.Equal(t, RunError, last.Type)
	require.Equal(t, Canceled, last.Ending)

	f := &failing{}
	evs = collect(Config{Provider: f, NewID: ids()}.Run(context.Background(), nil, "go"))
	last = evs[len(evs)-1]
	require.Equal(t, Failed, last.Ending)
	require.Equal(t, CodeModel, last.Error.Code)
	require.True(t, last.Error.Retriable)
}

func TestHistoryIsSentAndConsumerStopCancels(t *testing.T) {
	p := &script{turns: [][]llm.Event{text("a", "b", "c")}}
	hist := []llm.Message{{Role: llm.RoleUser, Content: "earlier"}, {Role: llm.RoleAssistant, Content: "reply"}}
	n := 0
	for e := range (Config{Provider: p, NewID: ids()}).Run(context.Background(), hist, "now") {
		n++
		if e.Type == ContentDelta {
			break
		}
	}
	require.Equal(t, 3, n)
	require.Equal(t, "earlier", p.reqs[0].Messages[0].Content)
	require.Equal(t, "now", p.reqs[0].Messages[2].Content)
}

type failing struct{}

func (failing) Stream(context.Context, *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		yield(llm.Event{}, &llm.Error{Kind: llm.Server, Status: 503, Message: "unavailable"})
	}
}
