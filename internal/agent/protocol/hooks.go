package protocol

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
)

// beforeRequest runs the BeforeRequest interceptors in order (§4.10). A hook
// returning nil keeps the request it got; an error fails the turn like a
// provider error.
func (t *tree) beforeRequest(ctx context.Context, req *llm.Request) (*llm.Request, error) {
	for i, h := range t.rt.Hooks.BeforeRequest {
		next, err := callInterceptor(func() (*llm.Request, error) { return h(ctx, req) })
		if err != nil {
			return nil, fmt.Errorf("protocol: BeforeRequest hook %d: %w", i, err)
		}
		if next != nil {
			req = next
		}
	}
	return req, nil
}

// callInterceptor turns a panic of an interceptor into an error.
func callInterceptor[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("hook panicked: %v", p)
		}
	}()
	return f()
}

// guardVerdict runs the guards (the runtime's, then the agent's built-in
// minMeanWeight) for one call. The first deny wins; warnings accumulate. A
// panicking guard denies the call with the panic as reason.
func (r *run) guardVerdict(call *Call, tally Tally) (deny *GuardVerdict, warns []Warning) {
	guards := r.tree.rt.Hooks.Guards
	if r.builtinGuard != nil {
		guards = append(slices.Clip(guards), r.builtinGuard)
	}
	for _, g := range guards {
		c := *call
		v, err := callInterceptor(func() (GuardVerdict, error) { return g.Check(&c, tally), nil })
		if err != nil {
			v = GuardVerdict{Action: GuardDeny, Reason: fmt.Sprintf("guard failed for %s: %v", call.Tool, err)}
		}
		switch v.Action {
		case GuardDeny:
			if v.Reason == "" {
				v.Reason = "guard denied " + call.Tool
			}
			return &v, warns
		case GuardWarn:
			msg := v.Reason
			if msg == "" {
				msg = "guard warning for " + call.Tool
			}
			warns = append(warns, Warning{Code: WarnGuard, Message: msg})
		}
	}
	return nil, warns
}

// observe calls one observer, serialised over the whole run tree, with a
// panic recovered and logged (§4.10).
func (t *tree) observe(name string, f func()) {
	t.obsMu.Lock()
	defer t.obsMu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			slog.Default().Warn("protocol: observer panicked", "hook", name, "panic", fmt.Sprint(p))
		}
	}()
	f()
}

func (t *tree) onUsage(u llm.Usage) {
	for _, h := range t.rt.Hooks.OnUsage {
		t.observe("OnUsage", func() { h(u) })
	}
}

func (t *tree) onTurn(s TurnSummary) {
	for _, h := range t.rt.Hooks.OnTurn {
		c := TurnSummary{Turn: s.Turn, Dispatched: slices.Clone(s.Dispatched), Denied: slices.Clone(s.Denied), Stranded: slices.Clone(s.Stranded)}
		t.observe("OnTurn", func() { h(c) })
	}
}

func (t *tree) onAdvice(rep AdviceReport) {
	for _, h := range t.rt.Hooks.OnAdvice {
		c := AdviceReport{Turn: rep.Turn, Tallies: slices.Clone(rep.Tallies), Warnings: slices.Clone(rep.Warnings)}
		for _, o := range rep.Opinions {
			c.Opinions = append(c.Opinions, copyOpinion(o))
		}
		t.observe("OnAdvice", func() { h(c) })
	}
}

func (t *tree) onWrite(m agentctx.Message) {
	for _, h := range t.rt.Hooks.OnWrite {
		c := cloneMessage(m)
		t.observe("OnWrite", func() { h(c) })
	}
}

func (t *tree) onScopeDecision(req ScopeRequest, dec ScopeDecision) {
	for _, h := range t.rt.Hooks.OnScopeDecision {
		rq := req
		rq.Provisioned, rq.Requested, rq.Preview = slices.Clone(req.Provisioned), slices.Clone(req.Requested), slices.Clone(req.Preview)
		d := dec
		d.Scopes = slices.Clone(dec.Scopes)
		t.observe("OnScopeDecision", func() { h(rq, d) })
	}
}

func (t *tree) onError(e agentctx.ErrorInfo) {
	for _, h := range t.rt.Hooks.OnError {
		c := e
		c.Call, c.Details = agentctx.Clone(e.Call), agentctx.Clone(e.Details)
		t.observe("OnError", func() { h(c) })
	}
}

// copyOpinion returns a deep copy of an opinion.
func copyOpinion(o Opinion) Opinion {
	c := o
	if o.Answer != nil {
		c.Answer, _ = agentctx.Clone(o.Answer).(*agentctx.Object)
	}
	c.Weights = slices.Clone(o.Weights)
	c.Warnings = slices.Clone(o.Warnings)
	return c
}
