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

// streamModel streams one model call to p, for the modes and the protocol
// runtime alike, under the one retry rule of PLATFORM_API § 6.3,
// llm.Reconnect, with each attempt bounded by timeout
// (budget.model.timeoutMs): a call that failed before its first event, on
// its first attempt, with a retriable error (network, 429, 5xx; not the
// model call timeout) gets one transparent reconnect. That is the only
// retry of the call: the model registry builds its adapters without
// retries of their own, so a failing provider sees two requests, from the
// CLI and the server alike. A Retry-After is honoured up to MaxRetryWait; a
// longer one ends the call at once, and the run.error says so
// (modelErrorInfo). Events go to the consumer as they come. The error it
// yields is the caller's context error once that is done, else
// llm.Reconnect's: an *llm.TimeoutError for the per-call timeout, else the
// provider's error (in an *llm.RetryError when a Retry-After was waited or
// refused); see modelFailure. Stopping the iteration stops the call.
func (e *Runner) streamModel(ctx context.Context, p llm.Provider, req *llm.Request, timeout time.Duration,
	log *slog.Logger) iter.Seq2[llm.Event, error] {
	rule := llm.Reconnect{MaxWait: e.MaxRetryWait, Sleep: e.Sleep, Timeout: timeout, Log: log}
	return func(yield func(llm.Event, error) bool) {
		for ev, err := range rule.Stream(ctx, p, req) {
			if err != nil && ctx.Err() != nil {
				err = ctx.Err()
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// modelFailure is the run.error of a failed model call (§ 3.5), in every
// strategy: the per-call timeout (retriable), else modelErrorInfo.
func modelFailure(err error) ErrorInfo {
	var te *llm.TimeoutError
	if errors.As(err, &te) {
		return ErrorInfo{Code: CodeModelError, Retriable: true,
			Message: fmt.Sprintf("Model call timeout: budget.model.timeoutMs=%d", te.Timeout.Milliseconds())}
	}
	return modelErrorInfo(err)
}

// modelErrorInfo is the run.error of a failed model call (§ 3.5): code
// model_error, retriable for connection failures, 429 and 5xx, and a
// message a client may see: the provider error without its cause and
// without network addresses (llm.PublicMessage; callers log the full
// error), plus what the retry rule did with a Retry-After.
func modelErrorInfo(err error) ErrorInfo {
	info := ErrorInfo{Code: CodeModelError, Message: llm.PublicMessage(err), Retriable: llm.IsRetriable(err)}
	var re *llm.RetryError
	if errors.As(err, &re) {
		switch {
		case re.Refused > 0:
			info.Message += fmt.Sprintf(" (the provider asked to retry after %s, longer than the %s this server waits; try again later)",
				llm.Seconds(re.Refused), llm.Seconds(re.MaxWait))
		case re.Waited > 0:
			info.Message += fmt.Sprintf(" (retried once after the provider's Retry-After of %s)", llm.Seconds(re.Waited))
		}
	}
	return info
}
