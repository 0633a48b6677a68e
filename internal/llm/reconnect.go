package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"
)

// DefaultMaxRetryWait is Reconnect.MaxWait's default.
const DefaultMaxRetryWait = 30 * time.Second

// Reconnect is the one retry rule of a model call (PLATFORM_API § 6.3), for
// the agent runtime's model calls and for the model calls made outside it
// (the cursor agent, the codex assistant): a call that failed before its
// first event, on its first attempt, with a retriable error (network, 429,
// 5xx) gets one transparent reconnect; one that ran out of its per-call
// Timeout gets none. A Retry-After is waited up to MaxWait; a longer one
// ends the call at once. The model adapters never retry on their own when
// built by the model registry (llm/models), so a failing provider sees two
// requests, from the command line and the server alike.
type Reconnect struct {
	// MaxWait is the longest Retry-After waited before the reconnect
	// (0 = DefaultMaxRetryWait).
	MaxWait time.Duration
	// Sleep waits before the reconnect (nil = a timer that stops when ctx
	// is done); tests inject a fake.
	Sleep func(ctx context.Context, d time.Duration) error
	// Timeout bounds each attempt (0 = only the caller's context does): an
	// attempt it ends is not reconnected and the call fails with a
	// *TimeoutError (the agent runtime's budget.model.timeoutMs).
	Timeout time.Duration
	// Log, when set, is told of a reconnect (info) and of a call that
	// failed while its context was not done (warning).
	Log *slog.Logger
}

// after decides what follows failed attempt number attempt (from 0) of a
// call whose attempt had delivered events events before failing with err.
// again is true when the caller reconnects now; waited is the Retry-After
// after has waited for it. Otherwise refused is a Retry-After longer than
// MaxWait that was not waited (0 when none), and werr, when not nil, is the
// error (the context's) that interrupted the wait.
func (r Reconnect) after(ctx context.Context, err error, attempt, events int) (again bool, waited, refused time.Duration, werr error) {
	if attempt > 0 || events > 0 || !IsRetriable(err) || ctx.Err() != nil {
		return false, 0, 0, nil
	}
	var le *Error
	if errors.As(err, &le) && le.RetryAfter > 0 {
		if le.RetryAfter > r.maxWait() {
			return false, 0, le.RetryAfter, nil
		}
		sleep := r.Sleep
		if sleep == nil {
			sleep = Sleep
		}
		if err := sleep(ctx, le.RetryAfter); err != nil {
			return false, 0, 0, err
		}
		return true, le.RetryAfter, 0, nil
	}
	return true, 0, 0, nil
}

// maxWait is MaxWait, or DefaultMaxRetryWait when it is not set.
func (r Reconnect) maxWait() time.Duration {
	if r.MaxWait <= 0 {
		return DefaultMaxRetryWait
	}
	return r.MaxWait
}

// Stream streams p's reply to req under the rule: the events of each
// attempt as they come, and after the last one nothing more when it
// succeeded, else its error: a *TimeoutError when Timeout ended it, a
// *RetryError wrapping the provider's when a Retry-After was waited or
// refused (so that the caller's error says why the call was or was not
// retried), the context's (ContextError) whenever the caller's context
// has ended. An attempt whose stream ends without an error after its
// context is done has failed with the context's error. Stopping the
// iteration stops the call.
func (r Reconnect) Stream(ctx context.Context, p Provider, req *Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		var lastWait time.Duration // the Retry-After waited before this attempt
		for attempt := 0; ; attempt++ {
			events, stopped, timedOut, failed := r.attempt(ctx, p, req, yield)
			switch {
			case stopped || failed == nil:
				return
			case timedOut:
				yield(Event{}, &TimeoutError{Timeout: r.Timeout, Err: failed})
				return
			}
			again, waited, refused, werr := r.after(ctx, failed, attempt, events)
			if again {
				r.log(slog.LevelInfo, "model call failed before the first event; reconnecting", failed)
				lastWait = waited
				continue
			}
			if ctx.Err() == nil {
				r.log(slog.LevelWarn, "model call failed", failed)
			}
			switch {
			case ctx.Err() != nil: // the caller's end, whatever the last attempt said
				failed = ContextError(ctx)
			case werr != nil:
				failed = werr
			case refused > 0 || lastWait > 0:
				failed = &RetryError{Err: failed, Waited: lastWait, Refused: refused, MaxWait: r.maxWait()}
			}
			yield(Event{}, failed)
			return
		}
	}
}

// attempt plays one provider stream into yield, bounded by Timeout:
// events counts the events, stopped reports that yield asked to stop,
// timedOut that Timeout (not the caller's context) ended it.
func (r Reconnect) attempt(ctx context.Context, p Provider, req *Request,
	yield func(Event, error) bool) (events int, stopped, timedOut bool, err error) {
	callCtx := ctx
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	for ev, e := range p.Stream(callCtx, req) {
		if e != nil {
			err = e
			break
		}
		events++
		if !yield(ev, nil) {
			return events, true, false, nil
		}
	}
	if err == nil && callCtx.Err() != nil {
		err = ContextError(callCtx)
	}
	return events, false, callCtx.Err() != nil && ctx.Err() == nil, err
}

// log writes msg with err to Log, when set.
func (r Reconnect) log(level slog.Level, msg string, err error) {
	if r.Log != nil {
		r.Log.Log(context.Background(), level, msg, "err", err)
	}
}

// TimeoutError is a model call whose attempt ran out of Reconnect.Timeout.
type TimeoutError struct {
	Timeout time.Duration
	Err     error // the provider's (or the context's) error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("model call timeout after %s: %v", e.Timeout, e.Err)
}

// Unwrap returns the provider's error.
func (e *TimeoutError) Unwrap() error { return e.Err }

// RetryError is a model call's error with what the retry rule did with
// the provider's Retry-After: waited it before a reconnect that failed
// too, or refused it (longer than MaxWait: the call was not retried).
type RetryError struct {
	Err     error         // the provider's error of the last attempt
	Waited  time.Duration // the Retry-After waited before the reconnect (0 if none)
	Refused time.Duration // the Retry-After not waited, longer than MaxWait (0 if none)
	MaxWait time.Duration // the longest Retry-After the rule waits
}

// Error is the provider's error and why the call was or was not retried.
func (e *RetryError) Error() string {
	if e.Refused > 0 {
		return fmt.Sprintf("%v (the provider asked to wait %s, more than the %s the client waits, so it was not retried)",
			e.Err, Seconds(e.Refused), Seconds(e.MaxWait))
	}
	return fmt.Sprintf("%v (retried once after the provider's Retry-After of %s)", e.Err, Seconds(e.Waited))
}

// Unwrap returns the provider's error.
func (e *RetryError) Unwrap() error { return e.Err }

// Seconds formats d as whole seconds ("45 s"), or milliseconds below one
// second ("250 ms"), as the messages about a Retry-After say it.
func Seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int64(d.Round(time.Second)/time.Second))
}

// Reconnecting is p with each call under the default Reconnect rule, for
// the model calls made outside the agent runtime (whose own calls apply
// the rule with the run's per-call timeout and log).
func Reconnecting(p Provider) Provider { return reconnecting{p: p} }

type reconnecting struct{ p Provider }

func (c reconnecting) Stream(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return Reconnect{}.Stream(ctx, c.p, req)
}

// SupportsJSONSchema is the wrapped provider's.
func (c reconnecting) SupportsJSONSchema(model string) bool { return SupportsJSONSchema(c.p, model) }

// Sleep waits d or until ctx is done, then returning ctx's error: the
// default wait before a reconnect, and the adapters' default Config.Sleep
// between their own retries.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
