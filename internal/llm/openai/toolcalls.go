package openai

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/aitexteditor/aite/internal/llm"
)

// nativeIDPrefix starts the ids given to calls that arrive without one
// (PLATFORM_API § 1.3).
const nativeIDPrefix = "call_native_"

// fragment is one tool_calls entry of a delta.
type fragment struct {
	index    int64
	hasIndex bool
	id       string
	name     string
	args     string
}

// fragmentOf reads one tool_calls entry. Arguments sent as a JSON object
// instead of a string (some servers do) are taken as their JSON text.
func fragmentOf(tc gjson.Result) fragment {
	idx := tc.Get("index")
	f := fragment{index: idx.Int(), hasIndex: idx.Type == gjson.Number, id: str(tc.Get("id"))}
	fn := tc.Get("function")
	f.name = str(fn.Get("name"))
	switch a := fn.Get("arguments"); a.Type {
	case gjson.String:
		f.args = a.Str
	case gjson.JSON:
		f.args = a.Raw
	}
	return f
}

// empty reports a fragment that carries nothing (null or {} entries).
func (f fragment) empty() bool { return f.id == "" && f.name == "" && f.args == "" }

// call is the state of one tool call of the turn.
type call struct {
	upstreamIndex int64
	hasIndex      bool
	upstreamID    string
	id, name      string
	args          strings.Builder // all fragments, byte for byte
	pending       []string        // fragments received before the name
	started       bool
	ended         bool
}

// accumulator assembles the tool calls of one turn. Calls are keyed by the
// upstream index, then by id; a fragment with neither continues the open
// call unless it names a new function. The open call ends (tool_call_end) as
// soon as a fragment for another call arrives or the turn ends; a later
// fragment for an ended call is a protocol error.
type accumulator struct {
	calls  []*call
	open   int // index into calls of the open call, -1 when none
	native int // ids assigned so far
	emit   func(llm.Event) error
}

// add applies one fragment.
func (a *accumulator) add(f fragment) error {
	if f.empty() {
		return nil
	}
	k := a.target(f)
	if k != a.open {
		if err := a.closeOpen(); err != nil {
			return err
		}
	}
	if k < 0 {
		k = a.newCall(f)
	}
	c := a.calls[k]
	if c.ended {
		return &llm.Error{Kind: llm.Protocol,
			Message: fmt.Sprintf("tool call fragment for call %d (%s) after it ended", k, c.id)}
	}
	a.open = k
	if c.name == "" {
		c.name = f.name
	}
	c.args.WriteString(f.args)
	if !c.started {
		if f.args != "" {
			c.pending = append(c.pending, f.args)
		}
		return a.start(k)
	}
	if f.args == "" {
		return nil
	}
	return a.emit(llm.Event{Kind: llm.EventToolCallDelta, Index: k, Text: f.args})
}

// target finds the call a fragment belongs to; -1 means a new call.
func (a *accumulator) target(f fragment) int {
	if f.hasIndex {
		for k := len(a.calls) - 1; k >= 0; k-- {
			c := a.calls[k]
			if c.hasIndex && c.upstreamIndex == f.index {
				if f.id != "" && c.upstreamID != "" && f.id != c.upstreamID ||
					f.name != "" && c.name != "" && f.name != c.name {
					return -1 // the same index reused for another call
				}
				return k
			}
		}
	}
	if f.id != "" {
		for k, c := range a.calls {
			if c.upstreamID == f.id {
				return k
			}
		}
		return -1
	}
	if f.hasIndex || a.open < 0 {
		return -1
	}
	if f.name != "" && a.calls[a.open].name != "" {
		return -1 // a new function without index or id
	}
	return a.open
}

// newCall registers a call and returns its turn index.
func (a *accumulator) newCall(f fragment) int {
	c := &call{upstreamIndex: f.index, hasIndex: f.hasIndex, upstreamID: f.id, id: f.id}
	if c.id == "" {
		a.native++
		c.id = nativeIDPrefix + strconv.Itoa(a.native)
	}
	a.calls = append(a.calls, c)
	return len(a.calls) - 1
}

// start emits tool_call_start once the name is known, then the fragments
// that arrived before it.
func (a *accumulator) start(k int) error {
	c := a.calls[k]
	if c.name == "" {
		return nil
	}
	c.started = true
	if err := a.emit(llm.Event{Kind: llm.EventToolCallStart, Index: k,
		Call: &llm.ToolCall{ID: c.id, Name: c.name}}); err != nil {
		return err
	}
	for _, frag := range c.pending {
		if err := a.emit(llm.Event{Kind: llm.EventToolCallDelta, Index: k, Text: frag}); err != nil {
			return err
		}
	}
	c.pending = nil
	return nil
}

// closeOpen ends the open call, if any, with its complete arguments.
func (a *accumulator) closeOpen() error {
	if a.open < 0 {
		return nil
	}
	k := a.open
	c := a.calls[k]
	a.open, c.ended = -1, true
	if !c.started {
		return &llm.Error{Kind: llm.Protocol, Message: fmt.Sprintf("tool call %d (%s) has no function name", k, c.id)}
	}
	return a.emit(llm.Event{Kind: llm.EventToolCallEnd, Index: k,
		Call: &llm.ToolCall{ID: c.id, Name: c.name, Arguments: c.args.String()}})
}
