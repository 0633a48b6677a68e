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

type editsKey struct{}

// WithEdits returns a context whose calls report the edits they apply to
// f. Tools return their edits in Result.Edits; a call that cannot (a
// protocol activity returns a value, not a Result) reports each applied
// edit with ReportEdit before it returns, and the run streams it as
// document.edit.
func WithEdits(ctx context.Context, f func(Edit)) context.Context {
	return context.WithValue(ctx, editsKey{}, f)
}

// ReportEdit hands an applied edit to the context's edit reporter, if any.
func ReportEdit(ctx context.Context, e Edit) {
	if f, ok := ctx.Value(editsKey{}).(func(Edit)); ok && f != nil {
		f(e)
	}
}
