package openai

import (
	"context"
	"errors"
	"io"

	"github.com/tidwall/gjson"

	"github.com/aitexteditor/aite/internal/llm"
)

// errStopped tells the turn that the consumer stopped iterating.
var errStopped = errors.New("consumer stopped")

// turn converts the chunks of one stream into events.
type turn struct {
	p      *Provider
	model  string
	yield  func(llm.Event, error) bool
	calls  accumulator
	finish llm.FinishReason
	ended  bool // the stream ended at [DONE] or at the end of the body
}

func newTurn(p *Provider, model string, yield func(llm.Event, error) bool) *turn {
	t := &turn{p: p, model: model, yield: yield}
	t.calls.emit = t.emit
	t.calls.open = -1
	return t
}

// emit yields one event; errStopped when the consumer has had enough.
func (t *turn) emit(ev llm.Event) error {
	if !t.yield(ev, nil) {
		return errStopped
	}
	return nil
}

// run relays the first chunk and every following one, then ends the turn.
// Each chunk's events are yielded before the next chunk is read.
func (t *turn) run(ctx context.Context, u *upstream) {
	data := u.first
	for {
		if err := t.chunk(data); err != nil {
			t.fail(ctx, err)
			return
		}
		var err error
		data, err = u.sse.next()
		if err == io.EOF {
			t.ended = true
			break
		}
		if err != nil {
			if t.finish == "" || ctx.Err() != nil {
				t.fail(ctx, err)
				return
			}
			// The turn was complete; only the trailer (usage, [DONE]) was lost.
			t.p.cfg.Logger.Warn("llm/openai: stream broke after the finish reason", "model", t.model, "error", err)
			break
		}
	}
	t.fail(ctx, t.end())
}

// fail yields err as an *llm.Error, unless it is nil or errStopped.
func (t *turn) fail(ctx context.Context, err error) {
	if err == nil || errors.Is(err, errStopped) {
		return
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		e = t.p.classify(ctx, err, true)
	}
	t.yield(llm.Event{}, e)
}

// chunk emits the events of one chunk: reasoning, content and tool-call
// fragments of choice 0 in that order, the closing of calls on a finish
// reason, then usage. Chunks without choices (null, {}, usage-only) are
// fine; other choices than 0 are ignored.
func (t *turn) chunk(data []byte) error {
	if !gjson.ValidBytes(data) {
		return errMalformedChunk
	}
	root := gjson.ParseBytes(data)
	if err := chunkErrorOf(root); err != nil {
		return err
	}
	var err error
	root.Get("choices").ForEach(func(_, ch gjson.Result) bool {
		if ch.Get("index").Int() == 0 {
			err = t.choice(ch)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if u := root.Get("usage"); u.IsObject() {
		return t.emit(llm.Event{Kind: llm.EventUsage, Usage: t.usage(u)})
	}
	return nil
}

// choice emits one choice's delta and handles its finish reason.
func (t *turn) choice(ch gjson.Result) error {
	if err := t.delta(ch.Get("delta")); err != nil {
		return err
	}
	if r := ch.Get("finish_reason"); r.Type == gjson.String && r.Str != "" {
		t.finish = finishReason(r.Str)
		return t.calls.closeOpen()
	}
	return nil
}

// delta emits reasoning (reasoning_content, else reasoning), then content,
// then tool-call fragments.
func (t *turn) delta(d gjson.Result) error {
	var reasoning, altReasoning, content string
	var calls gjson.Result
	d.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "content":
			content = str(v)
		case "reasoning_content":
			reasoning = str(v)
		case "reasoning":
			altReasoning = str(v)
		case "tool_calls":
			calls = v
		}
		return true
	})
	if reasoning == "" {
		reasoning = altReasoning
	}
	if reasoning != "" {
		if err := t.emit(llm.Event{Kind: llm.EventReasoningDelta, Text: reasoning}); err != nil {
			return err
		}
	}
	if content != "" {
		if err := t.emit(llm.Event{Kind: llm.EventTextDelta, Text: content}); err != nil {
			return err
		}
	}
	var err error
	calls.ForEach(func(_, tc gjson.Result) bool {
		err = t.calls.add(fragmentOf(tc))
		return err == nil
	})
	return err
}

// str is v's text when v is a JSON string, else "".
func str(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// end closes the open call and emits the finish event.
func (t *turn) end() error {
	if err := t.calls.closeOpen(); err != nil {
		return err
	}
	finish := t.finish
	if finish == "" {
		finish = llm.FinishOther
	}
	return t.emit(llm.Event{Kind: llm.EventFinish, Finish: finish})
}

// usage converts the upstream usage and prices it.
func (t *turn) usage(u gjson.Result) *llm.Usage {
	cached := u.Get("prompt_tokens_details.cached_tokens").Int()
	if cached == 0 { // DeepSeek's name
		cached = u.Get("prompt_cache_hit_tokens").Int()
	}
	out := &llm.Usage{InputTokens: int(u.Get("prompt_tokens").Int()), CachedInputTokens: int(cached),
		OutputTokens: int(u.Get("completion_tokens").Int())}
	if price, ok := t.p.cfg.Pricing[t.model]; ok {
		out.Cost = price.Cost(*out)
	}
	return out
}

// finishReason maps the upstream finish reason.
func finishReason(s string) llm.FinishReason {
	switch s {
	case "stop":
		return llm.FinishStop
	case "length":
		return llm.FinishLength
	case "tool_calls", "function_call":
		return llm.FinishToolCalls
	case "content_filter":
		return llm.FinishContentFilter
	}
	return llm.FinishOther
}
