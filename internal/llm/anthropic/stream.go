package anthropic

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/aitexteditor/aite/internal/llm"
)

// eventStream is the SDK's typed SSE stream of the Messages API.
type eventStream = ssestream.Stream[anthropic.MessageStreamEventUnion]

// errStopped tells the turn that the consumer stopped iterating.
var errStopped = errors.New("consumer stopped")

// block is the state of one content block of the message.
type block struct {
	kind       string // "text", "thinking", "tool_use", …
	call       int    // tool_use: the tool call index within the turn
	id, name   string
	startInput string          // tool_use: the raw input of content_block_start
	args       strings.Builder // tool_use: every input_json_delta, byte for byte
	ended      bool
}

// tokens is the cumulative usage reported by the stream.
type tokens struct {
	input, cacheRead, cacheWrite, output int64
}

// turn converts the SSE events of one attempt into llm events.
type turn struct {
	p          *Provider
	model      string
	yield      func(llm.Event, error) bool
	emitted    bool // an event reached the consumer: no more retries
	blocks     map[int64]*block
	calls      []*block
	usage      tokens
	stopReason anthropic.StopReason
}

func newTurn(p *Provider, model string, yield func(llm.Event, error) bool) *turn {
	return &turn{p: p, model: model, yield: yield, blocks: map[int64]*block{}}
}

// emit yields one event; errStopped when the consumer has had enough.
func (t *turn) emit(ev llm.Event) error {
	t.emitted = true
	if !t.yield(ev, nil) {
		return errStopped
	}
	return nil
}

// run relays the events of s and ends the turn at message_stop. It returns
// nil when the turn is complete or the consumer stopped, else the failure
// (not yet yielded, so that the caller may retry it).
func (t *turn) run(ctx context.Context, s *eventStream) *llm.Error {
	defer s.Close()
	for s.Next() {
		ev := s.Current()
		done, err := t.event(&ev)
		if err != nil {
			return result(err)
		}
		if done {
			return result(t.end())
		}
	}
	err := s.Err()
	switch {
	case err != nil && (t.stopReason == "" || ctx.Err() != nil):
		return t.p.classify(ctx, err, t.emitted)
	case err != nil:
		// The turn was complete but for message_stop.
		t.p.cfg.Logger.Warn("llm/anthropic: stream broke after the stop reason", "model", t.model, "error", err)
	case t.stopReason == "":
		if ce := llm.ContextError(ctx); ce != nil {
			return ce
		}
		return &llm.Error{Kind: llm.Protocol, Message: "the stream ended before message_stop"}
	}
	return result(t.end())
}

// result maps the outcome of the turn for run.
func result(err error) *llm.Error {
	var e *llm.Error
	switch {
	case err == nil || errors.Is(err, errStopped):
		return nil
	case errors.As(err, &e):
		return e
	}
	return &llm.Error{Kind: llm.Protocol, Message: "malformed stream", Err: err}
}

// event handles one SSE event; done reports message_stop.
func (t *turn) event(ev *anthropic.MessageStreamEventUnion) (done bool, err error) {
	switch ev.Type {
	case "message_start":
		u := &ev.Message.Usage
		t.usage = tokens{u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens}
	case "content_block_start":
		return false, t.blockStart(ev.Index, &ev.ContentBlock)
	case "content_block_delta":
		return false, t.blockDelta(ev.Index, &ev.Delta)
	case "content_block_stop":
		if b := t.blocks[ev.Index]; b != nil && b.kind == "tool_use" {
			return false, t.endCall(b)
		}
	case "message_delta":
		return false, t.messageDelta(ev)
	case "message_stop":
		return true, nil
	}
	return false, nil // ping is dropped by the SDK; unknown events are ignored
}

// blockStart opens a content block: tool_use yields tool_call_start; text or
// thinking that already carries content yields it as a delta.
func (t *turn) blockStart(i int64, cb *anthropic.ContentBlockStartEventContentBlockUnion) error {
	if _, dup := t.blocks[i]; dup {
		return protocolError("content block %d started twice", i)
	}
	b := &block{kind: cb.Type}
	t.blocks[i] = b
	switch cb.Type {
	case "text":
		return t.text(llm.EventTextDelta, cb.Text)
	case "thinking":
		return t.text(llm.EventReasoningDelta, cb.Thinking)
	case "tool_use":
		if cb.Name == "" {
			return protocolError("tool_use block %d has no name", i)
		}
		b.call, b.id, b.name, b.startInput = len(t.calls), cb.ID, cb.Name, cb.JSON.Input.Raw()
		t.calls = append(t.calls, b)
		return t.emit(llm.Event{Kind: llm.EventToolCallStart, Index: b.call,
			Call: &llm.ToolCall{ID: b.id, Name: b.name}})
	}
	return nil
}

// blockDelta relays one content_block_delta.
func (t *turn) blockDelta(i int64, d *anthropic.MessageStreamEventUnionDelta) error {
	b := t.blocks[i]
	if b == nil {
		return protocolError("delta for content block %d before its start", i)
	}
	switch d.Type {
	case "text_delta":
		return t.text(llm.EventTextDelta, d.Text)
	case "thinking_delta":
		return t.text(llm.EventReasoningDelta, d.Thinking)
	case "input_json_delta":
		if b.kind != "tool_use" || b.ended {
			return protocolError("input_json_delta for content block %d, which is not an open tool_use block", i)
		}
		if d.PartialJSON == "" {
			return nil
		}
		b.args.WriteString(d.PartialJSON)
		return t.emit(llm.Event{Kind: llm.EventToolCallDelta, Index: b.call, Text: d.PartialJSON})
	}
	return nil // signature_delta, citations_delta
}

// text yields a non-empty text or reasoning delta.
func (t *turn) text(kind llm.EventKind, s string) error {
	if s == "" {
		return nil
	}
	return t.emit(llm.Event{Kind: kind, Text: s})
}

// endCall yields tool_call_end with the complete input: the concatenated
// fragments, else the input of content_block_start, else {}.
func (t *turn) endCall(b *block) error {
	if b.ended {
		return nil
	}
	b.ended = true
	args := b.args.String()
	if args == "" {
		args = b.startInput
	}
	if args == "" || args == "null" {
		args = "{}"
	}
	return t.emit(llm.Event{Kind: llm.EventToolCallEnd, Index: b.call,
		Call: &llm.ToolCall{ID: b.id, Name: b.name, Arguments: args}})
}

// endCalls closes every tool call still open.
func (t *turn) endCalls() error {
	for _, b := range t.calls {
		if err := t.endCall(b); err != nil {
			return err
		}
	}
	return nil
}

// messageDelta records the stop reason and yields the cumulative usage.
// Fields absent (or null) in the delta keep their message_start values.
func (t *turn) messageDelta(ev *anthropic.MessageStreamEventUnion) error {
	if ev.Delta.StopReason != "" {
		t.stopReason = ev.Delta.StopReason
	}
	if err := t.endCalls(); err != nil { // the content is complete
		return err
	}
	if !ev.JSON.Usage.Valid() {
		return nil
	}
	u := &ev.Usage
	t.usage.output = u.OutputTokens
	if u.JSON.InputTokens.Valid() {
		t.usage.input = u.InputTokens
	}
	if u.JSON.CacheReadInputTokens.Valid() {
		t.usage.cacheRead = u.CacheReadInputTokens
	}
	if u.JSON.CacheCreationInputTokens.Valid() {
		t.usage.cacheWrite = u.CacheCreationInputTokens
	}
	return t.emit(llm.Event{Kind: llm.EventUsage, Usage: t.llmUsage()})
}

// llmUsage converts the usage: Anthropic's input_tokens excludes cache reads
// and cache writes, llm.Usage.InputTokens includes both, and
// CachedInputTokens is the cache reads.
func (t *turn) llmUsage() *llm.Usage {
	u := t.usage
	out := &llm.Usage{
		InputTokens:       int(u.input + u.cacheRead + u.cacheWrite),
		CachedInputTokens: int(u.cacheRead),
		OutputTokens:      int(u.output),
	}
	if price, ok := t.p.cfg.Pricing[t.model]; ok {
		out.Cost = price.Cost(*out)
	}
	return out
}

// end closes open calls and yields the finish event.
func (t *turn) end() error {
	if err := t.endCalls(); err != nil {
		return err
	}
	return t.emit(llm.Event{Kind: llm.EventFinish, Finish: finishReason(t.stopReason)})
}

// finishReason maps stop_reason.
func finishReason(r anthropic.StopReason) llm.FinishReason {
	switch r {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		return llm.FinishStop
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		return llm.FinishLength
	case anthropic.StopReasonToolUse:
		return llm.FinishToolCalls
	case anthropic.StopReasonRefusal:
		return llm.FinishContentFilter
	}
	return llm.FinishOther // pause_turn, or none
}

func protocolError(format string, args ...any) *llm.Error {
	return &llm.Error{Kind: llm.Protocol, Message: fmt.Sprintf(format, args...)}
}
