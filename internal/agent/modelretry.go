package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/wire"
)

// DefaultMaxRetryWait is Runner.MaxRetryWait's default.
const DefaultMaxRetryWait = 30 * time.Second

// modelRetry applies the retry rule of PLATFORM_API § 6.3 to one model
// call, for the modes and the protocol runtime alike: a call that failed
// before its first event, on its first attempt, with a retriable error
// (network, 429, 5xx; not the model call timeout) gets one transparent
// reconnect. That is the only retry of the call: the server builds its
// model adapters without retries of their own, so a failing provider sees
// two requests. A Retry-After is honoured up to MaxRetryWait; a longer one
// ends the call at once, and the run.error says so (modelErrorInfo).
type modelRetry struct {
	maxWait time.Duration
	sleep   func(context.Context, time.Duration) error
	waited  time.Duration // the Retry-After waited before the reconnect
}

// modelRetry returns the rule for one model call.
func (e *Runner) modelRetry() *modelRetry {
	r := &modelRetry{maxWait: e.MaxRetryWait, sleep: e.Sleep}
	if r.maxWait <= 0 {
		r.maxWait = DefaultMaxRetryWait
	}
	if r.sleep == nil {
		r.sleep = wire.Sleep
	}
	return r
}

// after decides what follows failed attempt number attempt (from 0) that
// received events events: again is true when the caller reconnects now
// (after the wait, if any). Otherwise final is the error to report: err
// with what the rule did (a *modelError), or ctx's error when the wait was
// interrupted.
func (r *modelRetry) after(ctx context.Context, err error, attempt, events int) (again bool, final error) {
	if attempt > 0 || events > 0 || !llm.IsRetriable(err) || ctx.Err() != nil {
		return false, &modelError{err: err, waited: r.waited, maxWait: r.maxWait}
	}
	var le *llm.Error
	if errors.As(err, &le) && le.RetryAfter > 0 {
		if le.RetryAfter > r.maxWait {
			return false, &modelError{err: err, refused: le.RetryAfter, maxWait: r.maxWait}
		}
		if werr := r.sleep(ctx, le.RetryAfter); werr != nil {
			return false, werr
		}
		r.waited = le.RetryAfter
	}
	return true, nil
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
				seconds(me.refused), seconds(me.maxWait))
		case me.waited > 0:
			info.Message += fmt.Sprintf(" (retried once after the provider's Retry-After of %s)", seconds(me.waited))
		}
	}
	return info
}

// seconds formats d as whole seconds, or milliseconds below one second.
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int64(d.Round(time.Second)/time.Second))
}
