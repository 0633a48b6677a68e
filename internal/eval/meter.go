package eval

import (
	"context"
	"iter"
	"strings"
	"sync"

	"github.com/aitexteditor/aite/internal/llm"
)

// Meter is an llm.Provider that counts the calls and tokens of the
// provider it wraps. A call whose stream reports no usage is estimated
// with llm.EstimateTokens (its request's text in, its streamed text out)
// and counted as estimated. It remembers the last error a stream returned.
// It is safe for concurrent use.
type Meter struct {
	Provider llm.Provider

	mu        sync.Mutex
	calls     int
	estimated int
	usage     llm.Usage
	err       error
}

var _ llm.Provider = (*Meter)(nil)

// Stream passes the wrapped provider's stream through and counts it.
func (m *Meter) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		var reported *llm.Usage
		var out strings.Builder
		defer func() { m.count(req, reported, out.String()) }()
		for ev, err := range m.Provider.Stream(ctx, req) {
			if err != nil {
				m.fail(err)
			}
			switch ev.Kind {
			case llm.EventUsage:
				if ev.Usage != nil {
					u := *ev.Usage
					reported = &u
				}
			case llm.EventTextDelta, llm.EventReasoningDelta, llm.EventToolCallDelta:
				out.WriteString(ev.Text)
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

func (m *Meter) count(req *llm.Request, reported *llm.Usage, out string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if reported == nil {
		m.estimated++
		reported = &llm.Usage{InputTokens: RequestTokens(req), OutputTokens: llm.EstimateTokens(out)}
	}
	m.usage = m.usage.Add(*reported)
}

func (m *Meter) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.err = err
}

// Totals returns the calls, their summed usage and how many were estimated.
func (m *Meter) Totals() (calls int, u llm.Usage, estimated int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls, m.usage, m.estimated
}

// Err returns the last error a stream returned, or nil.
func (m *Meter) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// RequestTokens estimates what a request sends (llm.EstimateTokens): its
// messages, its tool calls, the declarations of its tools and the schema of
// its response format.
func RequestTokens(req *llm.Request) int {
	var b strings.Builder
	for _, msg := range req.Messages {
		b.WriteString(msg.Content)
		for _, c := range msg.ToolCalls {
			b.WriteString(c.Name)
			b.WriteString(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		b.WriteString(t.Name)
		b.WriteString(t.Description)
		b.Write(t.Parameters)
	}
	if req.ResponseFormat != nil {
		b.Write(req.ResponseFormat.Schema)
	}
	return llm.EstimateTokens(b.String())
}

// Fatal reports whether a provider error means the evaluation cannot go
// on, whatever the task: the credentials are refused, the request is
// refused as malformed (a wrong model name), or the endpoint cannot be
// reached. Rate limits, server errors, timeouts, broken streams and a
// prompt too long for the model are the model's failures on one task.
func Fatal(err error) bool {
	switch llm.KindOf(err) {
	case llm.Auth, llm.BadRequest, llm.Network:
		return true
	}
	return false
}
