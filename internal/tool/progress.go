package tool

import "context"

// Progress is a live report from inside a long tool call (a cursor agent
// reading batch k of n), forwarded to the run's event stream.
type Progress struct {
	Tool    string `json:"tool,omitempty"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type reporterKey struct{}

// WithReporter returns a context whose tool calls report progress to f.
func WithReporter(ctx context.Context, f func(Progress)) context.Context {
	return context.WithValue(ctx, reporterKey{}, f)
}

// Report sends progress to the context's reporter, if any.
func Report(ctx context.Context, p Progress) {
	if f, ok := ctx.Value(reporterKey{}).(func(Progress)); ok && f != nil {
		f(p)
	}
}
