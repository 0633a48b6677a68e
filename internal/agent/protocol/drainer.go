package protocol

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// drain executes a solution's calls (§4.1): tool.start for every call in
// index order, latent writes first, then ready calls in parallel up to
// maxParallel, re-scanning after each completion, until nothing runs and
// nothing is ready.
func (r *run) drain(ctx context.Context, turn int, comp *Composition, sol *Solution) drainResult {
	dr := r.newDrainer(turn, comp, sol)
	dr.announce()
	dr.sortOut()
	for dr.step(ctx) {
	}
	dr.finish()
	return dr.d
}

// drainer is the state of one drain; its fields are owned by the
// goroutine of the turn loop (workers report through done).
type drainer struct {
	r      *run
	turn   int
	comp   *Composition
	sol    *Solution
	d      drainResult
	calls  []*Call // in index order
	tools  map[*Call]*Tool
	queue  []*Call // not started yet
	maxPar int

	done     chan outcome
	running  int
	stop     bool
	waiting  map[*Call][]string // unresolved references of queued calls
	holding  []outcome          // calls waiting for their confirmation
	released []outcome          // confirmed calls waiting for a worker
}

func (r *run) newDrainer(turn int, comp *Composition, sol *Solution) *drainer {
	r.pending = nil
	dr := &drainer{r: r, turn: turn, comp: comp, sol: sol, d: drainResult{summary: TurnSummary{Turn: turn}},
		calls: slices.Clone(sol.Calls), tools: map[*Call]*Tool{}, maxPar: cmp.Or(r.a.Limits.MaxParallel, DefaultMaxParallel),
		done: make(chan outcome), waiting: map[*Call][]string{}}
	slices.SortStableFunc(dr.calls, func(a, b *Call) int { return cmp.Compare(a.Index, b.Index) })
	for _, c := range dr.calls {
		c.Turn, c.ToolID = turn, r.toolID(turn, c.Index)
		dr.tools[c] = comp.Tool(c.Tool)
	}
	return dr
}

// announce emits tool.start for every call, in index order.
func (dr *drainer) announce() {
	if !dr.r.events() {
		return
	}
	for _, c := range dr.calls {
		e := Event{Type: EvToolStart, Turn: dr.turn, ToolID: c.ToolID, ToolName: c.Tool, Instance: c.Instance, Description: c.Reasoning}
		if t := dr.tools[c]; t != nil {
			e.ToolType, e.FileKind = toolType(t), t.FileKind
		}
		if c.Args != nil {
			e.Params, _ = agentctx.Clone(c.Args).(*agentctx.Object)
		}
		dr.r.emit(e)
	}
}

// sortOut completes the calls of unknown tools and the latent writes at
// once and queues the others.
func (dr *drainer) sortOut() {
	for _, c := range dr.calls {
		t := dr.tools[c]
		if t == nil {
			o := outcome{call: c}
			o.fail(CodeUnknownTool, "unknown tool %s", c.Tool)
			dr.r.complete(o, &dr.d)
			continue
		}
		if t.Name != ConsultAdvisor && t.Kind == KindLatent {
			dr.r.complete(dr.r.latent(dr.comp, dr.sol.Opinions, c, t), &dr.d)
			continue
		}
		dr.queue = append(dr.queue, c)
	}
}

// step runs one round: start what may start; when nothing runs, ask for
// the confirmation of the held calls; else wait for one completion. It
// reports false once nothing runs any more.
func (dr *drainer) step(ctx context.Context) bool {
	if ctx.Err() != nil {
		dr.stop = true
	}
	if !dr.stop {
		dr.startReleased(ctx)
		dr.startReady(ctx)
	}
	if dr.running == 0 && len(dr.holding) > 0 && !dr.stop {
		// Nothing runs and nothing else is ready: one confirmation for
		// every held call, then the approved ones run.
		approved, err := dr.r.confirm(ctx, dr.turn, dr.holding, &dr.d)
		if err != nil {
			dr.stop = true
		} else {
			dr.holding, dr.released = nil, approved
		}
		return true
	}
	if dr.running == 0 {
		return false
	}
	dr.receive(<-dr.done)
	return true
}

// startReleased starts confirmed calls while workers are free.
func (dr *drainer) startReleased(ctx context.Context) {
	for len(dr.released) > 0 && dr.running < dr.maxPar {
		o := dr.released[0]
		dr.released = dr.released[1:]
		dr.running++
		go func() { dr.done <- dr.r.release(ctx, o) }()
	}
}

// startReady starts the queued calls whose references resolve, while
// workers are free; a call that cannot resolve, or whose resolved
// parameters are invalid, fails.
func (dr *drainer) startReady(ctx context.Context) {
	r := dr.r
	var next []*Call
	for _, c := range dr.queue {
		if dr.running >= dr.maxPar {
			next = append(next, c)
			continue
		}
		resolved, unresolved, err := agentctx.Resolve(c.Args, r.ctx.View(c.Instance))
		if err != nil {
			o := outcome{call: c, tool: dr.tools[c]}
			o.fail(codeOf(err, CodeCallInvalid), "%s: %v", describe(c), err)
			r.complete(o, &dr.d)
			continue
		}
		if len(unresolved) > 0 {
			dr.waiting[c] = unresolved
			next = append(next, c)
			continue
		}
		delete(dr.waiting, c)
		if msg := validateResolved(dr.tools[c], c.Args, resolved); msg != "" {
			o := outcome{call: c, tool: dr.tools[c]}
			o.fail(CodeCallInvalid, "%s: resolved parameters are invalid: %s", describe(c), msg)
			r.complete(o, &dr.d)
			continue
		}
		call := *c
		call.Args = resolved
		snap := r.ctx[:len(r.ctx):len(r.ctx)]
		t := dr.tools[c]
		dr.running++
		go func() { dr.done <- r.execute(ctx, snap, dr.comp, dr.sol.Opinions, &call, t) }()
	}
	dr.queue = next
}

// receive takes one completed (or held) call.
func (dr *drainer) receive(o outcome) {
	dr.running--
	if o.held != nil && o.err == nil {
		dr.r.warn(o.warnings...)
		o.warnings = nil
		dr.holding = append(dr.holding, o)
		return
	}
	dr.r.complete(o, &dr.d)
	if o.overBudget {
		dr.stop = true
		dr.d.budgetCap = capToolCalls
		dr.r.pending = append(dr.r.pending, PendingCall{ToolID: o.call.ToolID, Tool: o.call.Tool})
	}
}

// finish lists what the stop left waiting as pending calls and fails the
// calls whose references never resolved.
func (dr *drainer) finish() {
	r := dr.r
	for _, o := range append(dr.holding, dr.released...) { // the run stopped while they waited
		r.pending = append(r.pending, PendingCall{ToolID: o.call.ToolID, Tool: o.call.Tool})
	}
	for _, c := range dr.queue {
		if dr.stop {
			r.pending = append(r.pending, PendingCall{ToolID: c.ToolID, Tool: c.Tool, WaitingOn: dr.waiting[c]})
			continue
		}
		paths := dr.waiting[c]
		o := outcome{call: c, tool: dr.tools[c]}
		o.fail(CodeUnresolvedReference, "%s waits on %s, which never became available this turn", describe(c), strings.Join(paths, ", "))
		waitingOn := make([]any, len(paths))
		for i, p := range paths {
			waitingOn[i] = p
		}
		o.err.Details = agentctx.NewObject("waitingOn", waitingOn)
		dr.d.summary.Stranded = append(dr.d.summary.Stranded, c.ToolID)
		r.complete(o, &dr.d)
	}
}
