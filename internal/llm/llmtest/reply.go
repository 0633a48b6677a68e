package llmtest

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
)

// Reply is one scripted model turn of a Scripted provider: its events are
// yielded in order, then Err (if any); with Hang the stream then blocks until
// the context is done and yields the context's error (llm.Timeout or
// llm.Canceled).
type Reply struct {
	Events []llm.Event
	Err    error
	Hang   bool
}

// Text is a reply with one text delta and finish "stop".
func Text(s string) Reply { return Chunks(s) }

// Chunks is a reply with one text delta per part and finish "stop".
func Chunks(parts ...string) Reply {
	var r Reply
	for _, p := range parts {
		r.Events = append(r.Events, llm.Event{Kind: llm.EventTextDelta, Text: p})
	}
	return r.finish(llm.FinishStop)
}

// Reasoning is a reply with one reasoning delta and finish "stop"; combine
// it with Join(Reasoning("…"), Text("…")).
func Reasoning(s string) Reply {
	r := Reply{Events: []llm.Event{{Kind: llm.EventReasoningDelta, Text: s}}}
	return r.finish(llm.FinishStop)
}

// Calls is a reply with the given tool calls (start, one argument delta,
// end each) and finish "tool_calls". Empty ids become call_1, call_2, ….
func Calls(calls ...llm.ToolCall) Reply {
	var r Reply
	for i, c := range calls {
		if c.ID == "" {
			c.ID = "call_" + strconv.Itoa(i+1)
		}
		r.Events = append(r.Events, llm.Event{Kind: llm.EventToolCallStart, Index: i, Call: &llm.ToolCall{ID: c.ID, Name: c.Name}})
		if c.Arguments != "" {
			r.Events = append(r.Events, llm.Event{Kind: llm.EventToolCallDelta, Index: i, Text: c.Arguments})
		}
		end := c
		r.Events = append(r.Events, llm.Event{Kind: llm.EventToolCallEnd, Index: i, Call: &end})
	}
	return r.finish(llm.FinishToolCalls)
}

// Call is a tool call without an id (Calls assigns one).
func Call(name, arguments string) llm.ToolCall { return llm.ToolCall{Name: name, Arguments: arguments} }

// Fail is a reply that fails before any event.
func Fail(err error) Reply { return Reply{Err: err} }

// Empty is a reply with no content at all: only finish "stop".
func Empty() Reply { return Reply{}.finish(llm.FinishStop) }

// Timeout is a reply that blocks until the context is done.
func Timeout() Reply { return Reply{Hang: true} }

// MalformedJSON is a text reply that looks like truncated JSON.
func MalformedJSON() Reply { return Text(`{"answer": "unterminated`) }

// UnknownTool is a reply calling a tool that was never offered.
func UnknownTool(name string) Reply { return Calls(Call(name, `{}`)) }

// Join concatenates replies into one turn; only the last finish event is
// kept, and the last non-nil Err and any Hang carry over.
func Join(parts ...Reply) Reply {
	var out Reply
	var finish *llm.Event
	for _, p := range parts {
		for _, ev := range p.Events {
			if ev.Kind == llm.EventFinish {
				finish = &ev
				continue
			}
			out.Events = append(out.Events, ev)
		}
		if p.Err != nil {
			out.Err = p.Err
		}
		out.Hang = out.Hang || p.Hang
	}
	if finish != nil {
		out.Events = append(out.Events, *finish)
	}
	return out
}

// WithUsage inserts a usage event before the finish event.
func (r Reply) WithUsage(u llm.Usage) Reply {
	ev := llm.Event{Kind: llm.EventUsage, Usage: &u}
	n := len(r.Events)
	if n > 0 && r.Events[n-1].Kind == llm.EventFinish {
		r.Events = append(r.Events[:n-1:n-1], ev, r.Events[n-1])
		return r
	}
	r.Events = append(r.Events[:n:n], ev)
	return r
}

// FailAfter keeps the first n events and then fails with err.
func (r Reply) FailAfter(n int, err error) Reply {
	r.Events = r.Events[:min(n, len(r.Events)):min(n, len(r.Events))]
	r.Err = err
	return r
}

func (r Reply) finish(reason llm.FinishReason) Reply {
	r.Events = append(r.Events[:len(r.Events):len(r.Events)], llm.Event{Kind: llm.EventFinish, Finish: reason})
	return r
}

// NoSleep is a Config.Sleep for tests: it returns at once (ctx's error if
// ctx is done).
func NoSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// Sleeps records requested sleeps without sleeping; use its Sleep as
// openai.Config.Sleep.
type Sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep records d and returns at once.
func (s *Sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Durations returns the recorded sleeps in order.
func (s *Sleeps) Durations() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}
