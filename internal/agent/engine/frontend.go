package engine

import (
	"context"
	"fmt"
	"time"
)

// registerWait registers the pending key runId#toolId of a frontend call
// as soon as the call opens, so that a /submit arriving right after
// tool.end, before the call's execution slot, is kept (§ 4.1 step 2). A
// key that is already registered is an internal_error at the call's
// execution slot.
func (r *run) registerWait(c *callState) {
	c.wait, c.waitErr = r.e.waits.register(waitKey(r.spec.RunID, c.id))
	if c.waitErr == nil {
		r.waiting = append(r.waiting, c)
	}
}

// dropWaits removes the waits of frontend calls that never got their
// submit (the run ended first).
func (r *run) dropWaits() {
	for _, c := range r.waiting {
		r.e.waits.drop(waitKey(r.spec.RunID, c.id), c.wait)
	}
	r.waiting = nil
}

// waitFrontend waits up to FrontendTimeout for the /submit of a frontend
// call, the run deadline paused (§ 4.1). On timeout the call gets the
// frontend_submit_timeout result and the outcome is marked timeout.
func (r *run) waitFrontend(ctx context.Context, c *callState) (outcome, error) {
	if c.waitErr != nil {
		return outcome{}, internalf("%v", c.waitErr)
	}
	key := waitKey(r.spec.RunID, c.id)
	r.deadline.pause()
	defer r.deadline.resume()
	timer := time.NewTimer(r.e.frontendTimeout())
	defer timer.Stop()
	select {
	case p := <-c.wait:
		return outcome{text: string(p), submitted: p}, nil
	case <-timer.C:
		if p, ok := r.e.waits.drop(key, c.wait); ok {
			return outcome{text: string(p), submitted: p}, nil
		}
		res := errorOutcome(c.name, ToolCodeFrontendSubmitTimeout,
			fmt.Sprintf("Frontend tool submit timeout runId=%s, toolId=%s", r.spec.RunID, c.id))
		res.timeout = true
		return res, nil
	case <-ctx.Done():
		r.e.waits.drop(key, c.wait)
		return outcome{}, ctx.Err()
	}
}
