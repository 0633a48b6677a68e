package agent

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/aitexteditor/aite/internal/tool"
)

// toolRun is how one call of a Go tool went: its last attempt's result, Go
// error (a recovered panic is one) or timeout.
type toolRun struct {
	res      tool.Result
	err      error
	timedOut bool
}

// callTool runs one call of a Go tool, for every strategy (the rule of
// package tool, PLATFORM_API § 7.1): each attempt on a goroutine of its own
// with the call's id in its context (CallID), bounded by timeout
// (budget.tool.timeoutMs), its progress reports handed to progress on the
// calling goroutine before its result (a report after the call ended is
// dropped). A timeout, a Go error (infrastructure broke; a panic is one)
// and an error result with code tool_failed (or none) are retried up to
// retries times (budget.tool.retryCount); an error result with another
// code never. It returns ctx's error when the run ends meanwhile.
func callTool(ctx context.Context, toolID, name string, call func(context.Context) (tool.Result, error),
	timeout time.Duration, retries int, progress func(tool.Progress), log *slog.Logger) (toolRun, error) {
	var run toolRun
	for attempt := 0; attempt <= retries; attempt++ {
		run = attemptTool(ctx, toolID, name, call, timeout, progress, log)
		if err := ctx.Err(); err != nil {
			return run, err
		}
		if !run.retriable() {
			break
		}
		log.Info("backend tool failed; retrying", "tool", name, "toolId", toolID, "attempt", attempt+1, "err", run.err)
	}
	return run, nil
}

// retriable reports a timeout, a Go error or a tool_failed result.
func (t toolRun) retriable() bool {
	return t.timedOut || t.err != nil || t.res.IsError && (t.res.Code == "" || t.res.Code == ToolCodeFailed)
}

// invocation is what a tool goroutine reports.
type invocation struct {
	done bool
	res  tool.Result
	err  error
}

// attemptTool runs the call once.
func attemptTool(ctx context.Context, toolID, name string, call func(context.Context) (tool.Result, error),
	timeout time.Duration, progress func(tool.Progress), log *slog.Logger) toolRun {
	callCtx, cancel := context.WithTimeout(WithCall(ctx, toolID), timeout)
	defer cancel()
	reports := make(chan tool.Progress, 16)
	toolCtx := tool.WithReporter(callCtx, func(p tool.Progress) {
		select {
		case reports <- p:
		case <-callCtx.Done():
		}
	})
	ch := make(chan invocation, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				log.Error("tool panic", "tool", name, "toolId", toolID, "panic", p, "stack", string(debug.Stack()))
				ch <- invocation{done: true, err: fmt.Errorf("tool %s panicked: %v", name, p)}
			}
		}()
		res, err := call(toolCtx)
		ch <- invocation{done: true, res: res, err: err}
	}()
	inv := awaitInvocation(callCtx, ch, reports, progress)
	if callCtx.Err() != nil && ctx.Err() == nil && (inv.err != nil || !inv.done) {
		return toolRun{timedOut: true}
	}
	return toolRun{res: inv.res, err: inv.err}
}

// awaitInvocation waits for the tool goroutine (or the end of callCtx),
// handing its progress reports to progress meanwhile; the reports it sent
// before returning are all handed over before its result.
func awaitInvocation(callCtx context.Context, ch <-chan invocation, reports <-chan tool.Progress, progress func(tool.Progress)) invocation {
	var inv invocation
	for {
		select {
		case inv = <-ch:
			for {
				select {
				case p := <-reports:
					progress(p)
				default:
					return inv
				}
			}
		case p := <-reports:
			progress(p)
		case <-callCtx.Done():
			return inv
		}
	}
}

// outcome is the classic result of a call (§ 7.1): the tool's text, or the
// error JSON of a timeout (tool_timeout), a Go error (tool_failed) or an
// error result.
func (t toolRun) outcome(name string, timeoutMs int) outcome {
	switch {
	case t.timedOut:
		return errorOutcome(name, ToolCodeTimeout, fmt.Sprintf("Tool %s timed out after %d ms", name, timeoutMs))
	case t.err != nil:
		return errorOutcome(name, ToolCodeFailed, t.err.Error())
	case !t.res.IsError:
		return outcome{text: t.res.Text, edits: t.res.Edits}
	}
	code := t.res.Code
	if code == "" {
		code = ToolCodeFailed
	}
	out := errorOutcome(name, code, t.res.Text)
	out.edits = t.res.Edits
	return out
}
