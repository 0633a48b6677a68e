package llm

import (
	"iter"
	"strings"
)

// Collect consumes seq and folds it into one assistant message. Text and
// reasoning deltas are concatenated; tool calls are ordered by their Index,
// and a tool_call_end's complete call replaces what the fragments built. On
// error Collect returns what was folded so far together with the error.
func Collect(seq iter.Seq2[Event, error]) (Response, error) {
	var c collector
	for ev, err := range seq {
		if err != nil {
			return c.response(), err
		}
		c.add(ev)
	}
	return c.response(), nil
}

// collector is the state of Collect.
type collector struct {
	text, reasoning strings.Builder
	calls           []ToolCall
	args            []strings.Builder
	ended           []bool
	usage           Usage
	finish          FinishReason
}

func (c *collector) add(ev Event) {
	if ev.Index < 0 {
		return // a malformed event; nothing sensible to attach it to
	}
	switch ev.Kind {
	case EventTextDelta:
		c.text.WriteString(ev.Text)
	case EventReasoningDelta:
		c.reasoning.WriteString(ev.Text)
	case EventToolCallStart:
		c.slot(ev.Index)
		if ev.Call != nil {
			c.calls[ev.Index].ID, c.calls[ev.Index].Name = ev.Call.ID, ev.Call.Name
		}
	case EventToolCallDelta:
		c.slot(ev.Index)
		c.args[ev.Index].WriteString(ev.Text)
	case EventToolCallEnd:
		c.slot(ev.Index)
		if ev.Call != nil {
			c.calls[ev.Index] = *ev.Call
			c.ended[ev.Index] = true
		}
	case EventUsage:
		if ev.Usage != nil {
			c.usage = *ev.Usage
		}
	case EventFinish:
		c.finish = ev.Finish
	}
}

// slot grows the call tables so that index i exists.
func (c *collector) slot(i int) {
	for len(c.calls) <= i {
		c.calls = append(c.calls, ToolCall{})
		c.args = append(c.args, strings.Builder{})
		c.ended = append(c.ended, false)
	}
}

func (c *collector) response() Response {
	msg := Message{Role: RoleAssistant, Content: c.text.String(), Reasoning: c.reasoning.String()}
	for i, call := range c.calls {
		if !c.ended[i] {
			call.Arguments = c.args[i].String()
		}
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return Response{Message: msg, Usage: c.usage, Finish: c.finish}
}
