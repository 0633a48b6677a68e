package agent

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// waitFrontend waits up to FrontendTimeout for the answer to a frontend
// call, the run deadline paused (§ 4.1). On timeout (or when nobody can
// answer) the call gets the frontend_submit_timeout result and the outcome
// is marked timeout.
func (r *run) waitFrontend(ctx context.Context, c *callState) (outcome, error) {
	r.deadline.pause()
	defer r.deadline.resume()
	a, err := r.e.ask(ctx, r.e.frontendTimeout(), Question{RunID: r.spec.RunID, ID: c.id, Kind: AskFrontend,
		Call: &Call{ID: c.id, Name: c.name, Kind: c.kind, ToolParams: []byte(c.arguments())}})
	switch {
	case err == nil:
		return outcome{text: string(a.Raw), submitted: a.Raw}, nil
	case ctx.Err() != nil:
		return outcome{}, ctx.Err()
	}
	msg := fmt.Sprintf("Frontend tool submit timeout runId=%s, toolId=%s", r.spec.RunID, c.id)
	if errors.Is(err, ErrNoAnswer) {
		msg = fmt.Sprintf("Nobody can answer frontend tool %s (%v)", c.name, err)
	}
	res := errorOutcome(c.name, ToolCodeFrontendSubmitTimeout, msg)
	res.timeout = true
	return res, nil
}

// ask puts q to the Waiter for up to timeout (none when timeout <= 0). It
// returns ctx's error when the run ends first, context.DeadlineExceeded on
// timeout, an error wrapping ErrNoAnswer when nobody can answer.
func (e *Runner) ask(ctx context.Context, timeout time.Duration, q Question) (Answer, error) {
	if e.Waiter == nil {
		return Answer{}, fmt.Errorf("%w: no waiter", ErrNoAnswer)
	}
	wctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	a, err := e.Waiter.Wait(wctx, q)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		err = context.DeadlineExceeded
	}
	return a, err
}
