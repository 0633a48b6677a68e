package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
)

// DefaultMaxRetryWait is Reconnect.MaxWait's default.
const DefaultMaxRetryWait = 30 * time.Second

// Reconnect is the one retry rule of a model call (PLATFORM_API § 6.3), for
// the agent runtime's model calls and for the model calls made outside it
// (the cursor agent, the codex assistant): a call that failed before its
// first event, on its first attempt, with a retriable error (network, 429,
// 5xx) gets one transparent reconnect. A Retry-After is waited up to
// MaxWait; a longer one ends the call at once. The model adapters never
// retry on their own when built by the model registry (llm/models), so a
// failing provider sees two requests, from the command line and the server
// alike.
type Reconnect struct {
	// MaxWait is the longest Retry-After waited before the reconnect
	// (0 = DefaultMaxRetryWait).
	MaxWait time.Duration
	// Sleep waits before the reconnect (nil = a timer that stops when ctx
	// is done); tests inject a fake.
	Sleep func(ctx context.Context, d time.Duration) error
}

// After decides what follows failed attempt number attempt (from 0) of a
// call whose attempt had delivered events events before failing with err.
// again is true when the caller reconnects now; waited is the Retry-After
// After has waited for it. Otherwise refused is a Retry-After longer than
// MaxWait that was not waited (0 when none), and werr, when not nil, is the
// context error that interrupted the wait.
func (r Reconnect) After(ctx context.Context, err error, attempt, events int) (again bool, waited, refused time.Duration, werr error) {
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

// Stream streams p's reply to req under the rule: the events of the
// attempt that succeeds, or the error of the last attempt; a *RetryError
// wrapping it when a Retry-After was waited or refused, so that the
// caller's error says why the call was (or was not) retried.
func (r Reconnect) Stream(ctx context.Context, p Provider, req *Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		var lastWait time.Duration // the Retry-After waited before this attempt
		for attempt := 0; ; attempt++ {
			events := 0
			var failed error
			for ev, err := range p.Stream(ctx, req) {
				if err != nil {
					failed = err
					break
				}
				events++
				if !yield(ev, nil) {
					return
				}
			}
			if failed == nil {
				return
			}
			again, waited, refused, werr := r.After(ctx, failed, attempt, events)
			switch {
			case again:
				if waited > 0 {
					lastWait = waited
				}
				continue
			case werr != nil:
				failed = ContextError(ctx)
			case refused > 0 || lastWait > 0:
				failed = &RetryError{Err: failed, Waited: lastWait, Refused: refused, MaxWait: r.maxWait()}
			}
			yield(Event{}, failed)
			return
		}
	}
}

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
// the rule themselves, with the run's per-call timeout).
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
