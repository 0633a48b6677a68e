package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
)

// DefaultMaxRetryWait is Runner.MaxRetryWait's default.
const DefaultMaxRetryWait = llm.DefaultMaxRetryWait

// modelRetry applies the retry rule of PLATFORM_API § 6.3 (llm.Reconnect,
// the one rule) to one model call, for the modes and the protocol runtime
// alike: a call that failed before its first event, on its first attempt,
// with a retriable error (network, 429, 5xx; not the model call timeout)
// gets one transparent reconnect. That is the only retry of the call: the
// model registry builds its adapters without retries of their own, so a
// failing provider sees two requests, from the CLI and the server alike. A
// Retry-After is honoured up to MaxRetryWait; a longer one ends the call at
// once, and the run.error says so (modelErrorInfo).
type modelRetry struct {
	maxWait time.Duration
	sleep   func(context.Context, time.Duration) error
	waited  time.Duration // the Retry-After waited before the reconnect
}

// streamModel streams one model call to p, for every strategy: each
// attempt bounded by timeout (budget.model.timeoutMs), with the retry rule
// of modelRetry. Events go to the consumer as they come; an attempt that
// failed before its first event may be followed by the reconnect. The error
// it yields is a *callTimeout for the per-call timeout, else the provider's
// error with what the rule did (a *modelError, see modelFailure), else the
// caller's context error. Stopping the iteration stops the call.
func (e *Runner) streamModel(ctx context.Context, p llm.Provider, req *llm.Request, timeout time.Duration,
	log *slog.Logger) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		retry := e.modelRetry()
		for attempt := 0; ; attempt++ {
			n, stopped, timedOut, err := modelAttempt(ctx, p, req, timeout, yield)
			switch {
			case stopped || err == nil:
				return
			case ctx.Err() != nil:
				yield(llm.Event{}, ctx.Err())
				return
			case timedOut:
				yield(llm.Event{}, &callTimeout{ms: timeout.Milliseconds(), err: err})
				return
			}
			again, final := retry.after(ctx, err, attempt, n)
			if again {
				log.Info("model call failed before the first event; reconnecting", "err", err)
				continue
			}
			if ctx.Err() == nil {
				log.Warn("model call failed", "err", err)
			}
			yield(llm.Event{}, final)
			return
		}
	}
}

// modelAttempt plays one provider stream into yield: n counts the events,
// stopped reports that yield asked to stop, timedOut that the per-call
// timeout (not the caller's context) ended it.
func modelAttempt(ctx context.Context, p llm.Provider, req *llm.Request, timeout time.Duration,
	yield func(llm.Event, error) bool) (n int, stopped, timedOut bool, err error) {
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for ev, e := range p.Stream(callCtx, req) {
		if e != nil {
			err = e
			break
		}
		n++
		if !yield(ev, nil) {
			return n, true, false, nil
		}
	}
	if err == nil && callCtx.Err() != nil {
		err = llm.ContextError(callCtx)
	}
	return n, false, callCtx.Err() != nil && ctx.Err() == nil, err
}

// callTimeout is a model call that ran out of budget.model.timeoutMs.
type callTimeout struct {
	ms  int64
	err error // the provider's (or the context's) error
}

func (e *callTimeout) Error() string {
	return fmt.Sprintf("Model call timeout: budget.model.timeoutMs=%d", e.ms)
}
func (e *callTimeout) Unwrap() error { return e.err }

// modelFailure is the run.error of a failed model call (§ 3.5), in every
// strategy: the per-call timeout (retriable), else modelErrorInfo.
func modelFailure(err error) ErrorInfo {
	var ct *callTimeout
	if errors.As(err, &ct) {
		return ErrorInfo{Code: CodeModelError, Retriable: true, Message: ct.Error()}
	}
	return modelErrorInfo(err)
}

// modelRetry returns the rule for one model call.
func (e *Runner) modelRetry() *modelRetry {
	r := &modelRetry{maxWait: e.MaxRetryWait, sleep: e.Sleep}
	if r.maxWait <= 0 {
		r.maxWait = DefaultMaxRetryWait
	}
	if r.sleep == nil {
		r.sleep = llm.Sleep
	}
	return r
}

// after decides what follows failed attempt number attempt (from 0) that
// received events events (llm.Reconnect.After): again is true when the
// caller reconnects now. Otherwise final is the error to report: err with
// what the rule did (a *modelError), or ctx's error when the wait was
// interrupted.
func (r *modelRetry) after(ctx context.Context, err error, attempt, events int) (again bool, final error) {
	again, waited, refused, werr := llm.Reconnect{MaxWait: r.maxWait, Sleep: r.sleep}.After(ctx, err, attempt, events)
	switch {
	case again:
		r.waited = waited
		return true, nil
	case werr != nil:
		return false, werr
	}
	return false, &modelError{err: err, waited: r.waited, refused: refused, maxWait: r.maxWait}
}

// modelError is a failed model call with what the retry rule did.
type modelError struct {
	err     error
	waited  time.Duration // waited this Retry-After before the failed reconnect
	refused time.Duration // the provider's Retry-After, longer than maxWait: not waited
	maxWait time.Duration
}

func (e *modelError) Error() string { return e.err.Error() }
func (e *modelError) Unwrap() error { return e.err }

// modelErrorInfo is the run.error of a failed model call (§ 3.5): code
// model_error, retriable for connection failures, 429 and 5xx, and a
// message a client may see: the provider error without its cause and
// without network addresses (llm.PublicMessage; callers log the full
// error), plus what the retry rule did with a Retry-After.
func modelErrorInfo(err error) ErrorInfo {
	info := ErrorInfo{Code: CodeModelError, Message: llm.PublicMessage(err), Retriable: llm.IsRetriable(err)}
	var me *modelError
	if errors.As(err, &me) {
		switch {
		case me.refused > 0:
			info.Message += fmt.Sprintf(" (the provider asked to retry after %s, longer than the %s this server waits; try again later)",
				llm.Seconds(me.refused), llm.Seconds(me.maxWait))
		case me.waited > 0:
			info.Message += fmt.Sprintf(" (retried once after the provider's Retry-After of %s)", llm.Seconds(me.waited))
		}
	}
	return info
}
