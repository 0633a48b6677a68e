package protocol

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
)

// Runtime runs protocol agents: the turn loop of §3 and the execution of §4.
// One Runtime may serve many runs at once; it is not modified by a run.
type Runtime struct {
	// Provider returns the model of an agent by its ModelInfo.Key ("" = the
	// default model). Required.
	Provider func(modelKey string) (llm.Provider, error)
	// Registry resolves activities, registered tools and delegate agents.
	// Nil means an empty registry.
	Registry Registry
	// Hooks are the interceptors and observers of §4.10; they apply to
	// sub-runs too. Guards and the Approver may be called from several
	// goroutines at once; observers are serialised.
	Hooks Hooks
	// Approver decides requested scopes under the policy "ask". Nil with
	// "ask" denies with the reason "no approver".
	Approver Approver
	// Confirmer confirms the held calls of Agent.ConfirmTools under the
	// policy Approval.Calls "ask" (aite extension). Nil with "ask" denies
	// them with the reason "no approver".
	Confirmer Confirmer
	// Clock stamps writes (`_date`) and measures elapsed time; nil means
	// time.Now. Deadlines always use the real clock.
	Clock func() time.Time
}

// RunOptions are the per-run inputs besides the agent and its context.
type RunOptions struct {
	RunID string
	// FirstOfChat says the model has not answered yet in this chat (§2.4):
	// `start` advisors are required on turn 1.
	FirstOfChat bool
	// Sink receives the run's events (nil = none). The runtime serialises
	// the calls: the sink never runs twice at once.
	Sink func(Event)
	// ChatGrants are remembered "chat" grants (AP4) of earlier runs of the
	// chat; see GrantsFromContext.
	ChatGrants []Grant
}

// RunResult is the outcome of a run that did not fail.
type RunResult struct {
	Output    any // the output value (ordered JSON) when HasOutput
	HasOutput bool
	// FinishReason is FinishStop, FinishMaxTurns or FinishBudget.
	FinishReason string
	// Ledger is set when a limit stopped the run (LM5).
	Ledger *Ledger
	// Context is the whole context at the end; Appended the messages
	// appended during the run (writes, errors, advice, activity messages,
	// `_grants`), in order.
	Context  agentctx.Context
	Appended agentctx.Context
	// Usage sums the model usage of the run and of its sub-runs.
	Usage llm.Usage
	// Grants are the "chat" grants decided during the run, to remember.
	Grants []Grant
	// Warnings are the non-fatal findings of the run (composition,
	// extraction, parsing, advisors, guards), in order.
	Warnings []Warning
}

// Run runs agent a on a context. a must be normalised (Agent.Normalize)
// and, when it names activities or delegates, checked (Agent.Check).
// The run context is: a `system` message with a.SystemPrompt (if any), then
// a.Context, then initial (chat memory and the run's `input`, built by the
// caller).
//
// A run stopped by a limit is not an error: it returns a RunResult with
// FinishReason FinishMaxTurns or FinishBudget and a Ledger. Run returns an
// error only when the runtime cannot go on: a provider error, a failing
// BeforeRequest hook, a composition error, or the caller's context being
// done (then the error is ctx.Err()).
func (rt *Runtime) Run(ctx context.Context, a *Agent, initial agentctx.Context, opts RunOptions) (*RunResult, error) {
	if a == nil {
		return nil, errors.New("protocol: Run: nil agent")
	}
	if rt.Provider == nil {
		return nil, errors.New("protocol: Run: Runtime.Provider is nil")
	}
	t := &tree{rt: rt, runID: opts.RunID, sink: opts.Sink, grants: newGrantStore(opts.ChatGrants), reg: rt.registry()}
	r, err := t.newRun(a, "", 0, nil, opts.FirstOfChat)
	if err != nil {
		return nil, err
	}
	res, err := r.run(ctx, initial)
	if err != nil {
		return nil, err
	}
	res.Grants = t.grants.chatDecided()
	return res, nil
}

func (rt *Runtime) now() time.Time {
	if rt.Clock != nil {
		return rt.Clock()
	}
	return time.Now()
}

func (rt *Runtime) registry() Registry {
	if rt.Registry != nil {
		return rt.Registry
	}
	return emptyRegistry{}
}

type emptyRegistry struct{}

func (emptyRegistry) Activity(string) (Activity, bool) { return nil, false }
func (emptyRegistry) Tool(string) (ToolDecl, bool)     { return ToolDecl{}, false }
func (emptyRegistry) Agent(string) (*Agent, bool)      { return nil, false }

// tree is what a run shares with its sub-runs: the runtime, the run id, the
// serialised sink, the observer lock and the remembered grants.
type tree struct {
	rt     *Runtime
	runID  string
	reg    Registry
	grants *grantStore

	sinkMu sync.Mutex
	sink   func(Event)
	obsMu  sync.Mutex
}

func (t *tree) send(e Event) {
	t.sinkMu.Lock()
	defer t.sinkMu.Unlock()
	t.sink(e)
}

// run is the state of one run or sub-run. Its fields are owned by the
// goroutine running the turn loop; drain workers only read snapshots and
// report outcomes back.
type run struct {
	tree         *tree
	a            *Agent
	provider     llm.Provider
	parentToolID string // "" for the top run
	depth        int    // 0 for the top run
	firstOfChat  bool
	budget       *budget
	builtinGuard Guard

	ctx          agentctx.Context
	runStart     int
	appended     agentctx.Context
	turnAppended agentctx.Context
	usage        llm.Usage
	stats        stats
	warnings     []Warning
	pending      []PendingCall // calls left waiting when the last drain stopped
}

func (t *tree) newRun(a *Agent, parentToolID string, depth int, parent *budget, firstOfChat bool) (*run, error) {
	p, err := t.rt.Provider(a.Model.Key)
	if err != nil {
		return nil, fmt.Errorf("protocol: model %q of agent %q: %w", a.Model.Key, a.Key, err)
	}
	if p == nil {
		return nil, fmt.Errorf("protocol: no model %q for agent %q", a.Model.Key, a.Key)
	}
	r := &run{tree: t, a: a, provider: p, parentToolID: parentToolID, depth: depth, firstOfChat: firstOfChat}
	r.stats.start = t.rt.now()
	r.budget = newBudget(parent, a.Limits, time.Now())
	if a.Guard != nil {
		r.builtinGuard = NewMinMeanWeight(*a.Guard)
	}
	return r, nil
}

// forwarded lists the event types of a sub-run that reach the sink (DG6).
var forwarded = map[EventType]bool{
	EvRunStart: true, EvAdvisorSnapshot: true, EvScopeRequest: true, EvScopeDecision: true, EvStep: true,
	EvConfirmRequest: true, EvConfirmDecision: true,
}

// events reports whether events are wanted at all (no sink: no payload).
func (r *run) events() bool { return r.tree.sink != nil }

func (r *run) emit(e Event) {
	if r.tree.sink == nil || (r.depth > 0 && !forwarded[e.Type]) {
		return
	}
	e.RunID = r.tree.runID
	e.Depth = r.depth
	if e.ParentToolID == "" {
		e.ParentToolID = r.parentToolID
	}
	r.tree.send(e)
}

// append adds a message to the run context and to this turn's appended
// messages.
func (r *run) append(m agentctx.Message) {
	r.ctx = append(r.ctx, m)
	r.appended = append(r.appended, m)
	r.turnAppended = append(r.turnAppended, m)
}

func (r *run) warn(ws ...Warning) { r.warnings = append(r.warnings, ws...) }

func (r *run) addUsage(u llm.Usage) { r.usage = r.usage.Add(u) }

func (r *run) maxTurns() int { return cmp.Or(r.a.Limits.MaxTurns, DefaultMaxTurns) }

func (r *run) stage() string {
	switch {
	case r.depth > 0:
		return "delegate"
	case r.a.Oneshot:
		return "oneshot"
	}
	return "react"
}

// toolID is `{runId}_call_{turn}_{index}`, or `{parentToolId}/{turn}_{index}`
// in a sub-run (§5.3).
func (r *run) toolID(turn, index int) string {
	if r.depth > 0 {
		return fmt.Sprintf("%s/%d_%d", r.parentToolID, turn, index)
	}
	return fmt.Sprintf("%s_call_%d_%d", r.tree.runID, turn, index)
}

// base is the agent's frozen context: its system prompt and its messages.
func (r *run) base() agentctx.Context {
	var c agentctx.Context
	if r.a.SystemPrompt != "" {
		c = append(c, agentctx.Message{Type: agentctx.TypeSystem, Text: r.a.SystemPrompt})
	}
	return append(c, r.a.Context...)
}

// deadlinePassed reports whether the run's own (or a parent's) deadline
// ended ctx, as opposed to the caller's context.
func (r *run) deadlinePassed(ctx context.Context) bool {
	dl := r.budget.deadline
	return !dl.IsZero() && errors.Is(ctx.Err(), context.DeadlineExceeded) && !time.Now().Before(dl)
}

// run is the turn loop.
func (r *run) run(ctx context.Context, initial agentctx.Context) (*RunResult, error) {
	r.ctx = append(r.base(), initial...)
	r.runStart = len(r.ctx)
	if r.events() {
		r.emit(Event{Type: EvRunStart, Context: slices.Clone(r.ctx)})
	}
	runCtx := ctx
	if dl := r.budget.deadline; !dl.IsZero() {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadline(ctx, dl)
		defer cancel()
	}
	maxTurns := r.maxTurns()
	for turn := 1; ; turn++ {
		if r.deadlinePassed(runCtx) {
			return r.stopped(capDeadline, FinishBudget), nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		left := r.budget.remaining(true)
		if left == 0 {
			return r.stopped(capModelCalls, FinishBudget), nil
		}
		final := turn >= maxTurns || left == 1
		var notes []string
		if !final && turn == maxTurns-1 {
			notes = append(notes, limitNotice(turn, maxTurns))
		}
		r.stats.turns = turn
		r.emit(Event{Type: EvTurnStart, Turn: turn})
		out, err := r.turn(runCtx, turn, final, notes)
		if err != nil {
			if r.deadlinePassed(runCtx) {
				return r.stopped(capDeadline, FinishBudget), nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		switch {
		case out.hasOutput:
			return r.finished(out.output), nil
		case out.budgetCap != "":
			return r.stopped(out.budgetCap, FinishBudget), nil
		case final && turn >= maxTurns:
			return r.stopped(capMaxTurns, FinishMaxTurns), nil
		case final:
			return r.stopped(capModelCalls, FinishBudget), nil
		}
	}
}

func (r *run) result() *RunResult {
	return &RunResult{Context: r.ctx, Appended: r.appended, Usage: r.usage, Warnings: r.warnings}
}

// finished ends the run with its output (LM1).
func (r *run) finished(output any) *RunResult {
	res := r.result()
	res.Output, res.HasOutput, res.FinishReason = output, true, FinishStop
	if r.events() {
		r.emit(Event{Type: EvOutput, Turn: r.stats.turns, Text: outputText(output, r.a.OutputText), Output: agentctx.Clone(output)})
		r.emit(Event{Type: EvComplete, Turn: r.stats.turns, FinishReason: FinishStop})
	}
	return res
}

// stopped ends the run at a limit with a ledger (LM5).
func (r *run) stopped(cap, reason string) *RunResult {
	res := r.result()
	res.FinishReason = reason
	res.Ledger = r.stats.ledger(cap, r.usage, r.tree.rt.now(), r.pending)
	if r.events() {
		l := *res.Ledger
		r.emit(Event{Type: EvComplete, Turn: r.stats.turns, FinishReason: reason, Ledger: &l})
	}
	return res
}

// outputText is the outputText field of the output when it is a string,
// else the output's compact JSON.
func outputText(output any, field string) string {
	if obj, ok := output.(*agentctx.Object); ok && field != "" {
		if v, ok := obj.Get(field); ok {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	b, err := agentctx.Encode(output)
	if err != nil {
		return ""
	}
	return string(b)
}

// turnOutcome is what one turn tells the loop.
type turnOutcome struct {
	hasOutput bool
	output    any
	budgetCap string // a budget stopped the run during the turn
}

// turn runs one turn: compose, ask (with repairs), advise, drain, feed the
// errors back.
func (r *run) turn(ctx context.Context, turn int, final bool, notes []string) (turnOutcome, error) {
	var out turnOutcome
	r.turnAppended = nil
	info := TurnInfo{
		Turn: turn, MaxTurns: r.maxTurns(), Final: final,
		FirstOfChat: r.firstOfChat && turn == 1, RunStart: r.runStart, Notes: notes,
	}
	comp, err := Compose(r.a, r.ctx, info, r.tree.reg)
	if err != nil {
		return out, fmt.Errorf("protocol: agent %q turn %d: compose: %w", r.a.Key, turn, err)
	}
	r.warn(comp.Warnings...)
	pr, err := r.ask(ctx, comp, notes)
	if err != nil {
		return out, err
	}
	if pr == nil { // the model-call budget ran out under us
		out.budgetCap = capModelCalls
		return out, nil
	}
	r.warn(pr.Warnings...)

	var errs []CallError
	sol := pr.Solution
	if len(pr.Repair) > 0 {
		if pr.RepairCode == CodeAdvisorMissing && sol != nil {
			r.warn(Warning{Code: WarnAdvisorMissing, Message: strings.Join(pr.Repair, "; ")})
		} else {
			errs = append(errs, repairError(pr))
			sol = nil
		}
	}
	summary := TurnSummary{Turn: turn}
	if sol != nil {
		errs = append(errs, pr.CallErrors...)
		tallies := r.turnTallies(comp, sol.Opinions)
		r.advise(turn, comp, sol.Opinions, tallies, pr.Warnings)
		d := r.drain(ctx, turn, comp, sol)
		errs = append(errs, d.errs...)
		summary = d.summary
		out.budgetCap = d.budgetCap
		if sol.HasOutput {
			out.hasOutput, out.output = true, sol.Output
		}
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	r.feedBack(turn, errs, !out.hasOutput)
	if r.depth == 0 {
		r.flushGrants()
	}
	if len(r.turnAppended) > 0 && r.events() {
		r.emit(Event{Type: EvContext, Turn: turn, Context: slices.Clone(r.turnAppended)})
	}
	if len(r.tree.rt.Hooks.OnTurn) > 0 {
		r.tree.onTurn(summary)
	}
	return out, nil
}

// feedBack appends the turn's errors once, by call index (§4.1), and
// reports them to OnError. In a turn with output they are reported but not
// fed back (LM1).
func (r *run) feedBack(turn int, errs []CallError, append_ bool) {
	slices.SortStableFunc(errs, func(a, b CallError) int { return cmp.Compare(a.Index, b.Index) })
	for _, e := range errs {
		info := errorInfo(turn, e)
		r.stats.noteError(e.Code)
		if append_ {
			r.append(agentctx.Message{Type: agentctx.TypeError, Error: &info})
		}
		if len(r.tree.rt.Hooks.OnError) > 0 {
			r.tree.onError(info)
		}
	}
}

// errorInfo builds the data of an error message. Index < 0 means the error
// is not about one call.
func errorInfo(turn int, e CallError) agentctx.ErrorInfo {
	info := agentctx.ErrorInfo{Turn: turn, Code: string(e.Code), Message: e.Message}
	if e.Index >= 0 {
		call := agentctx.NewObject("index", json.Number(strconv.Itoa(e.Index)), "_tool", e.Tool)
		if e.Instance != "" {
			call.Set("_instance", e.Instance)
		}
		info.Call = call
	}
	if e.Details != nil {
		d, err := toOrdered(e.Details)
		if err != nil {
			d = fmt.Sprint(e.Details)
		}
		info.Details = d
	}
	return info
}

// repairError is the error of a turn whose repairs were exhausted.
func repairError(pr *ParseResult) CallError {
	code := pr.RepairCode
	if code == "" || code == CodeAdvisorMissing {
		code = CodeSolutionInvalid
	}
	msg := "the solution could not be used"
	if len(pr.Repair) > 0 {
		msg += ": " + pr.Repair[0]
	}
	problems := make([]any, len(pr.Repair))
	for i, p := range pr.Repair {
		problems[i] = p
	}
	return CallError{Index: -1, Code: code, Message: msg, Details: agentctx.NewObject("problems", problems)}
}

// repairNote is the derived-tier note of a repair retry (§3).
func repairNote(problems []string) string {
	var b strings.Builder
	b.WriteString("Your previous reply for this turn could not be used:\n")
	for _, p := range problems {
		b.WriteString("- ")
		b.WriteString(p)
		b.WriteByte('\n')
	}
	b.WriteString("Reply again with one complete solution for this turn.")
	return b.String()
}

// ask sends the turn's request and repairs the reply up to RepairRetries
// times (§3). A nil result means the model-call budget had no call left.
func (r *run) ask(ctx context.Context, comp *Composition, notes []string) (*ParseResult, error) {
	retries := max(r.a.RepairRetries, 0)
	for attempt := 0; ; attempt++ {
		if !r.budget.take(true) {
			return nil, nil
		}
		resp, req, err := r.request(ctx, comp, r.ctx)
		r.addUsage(resp.Usage)
		r.stats.modelCalls++
		if attempt > 0 {
			r.stats.repairs++
		}
		if err != nil {
			return nil, fmt.Errorf("protocol: agent %q turn %d: %w", r.a.Key, comp.Turn.Turn, err)
		}
		pr := parseReply(comp, resp.Message)
		if r.events() {
			var tallies []Tally
			var sol any
			if pr.Solution != nil {
				tallies = r.turnTallies(comp, pr.Solution.Opinions)
				sol = pr.Solution.Normalised
			}
			r.emit(Event{Type: EvStep, Turn: comp.Turn.Turn, Step: &Step{
				Turn: comp.Turn.Turn, Repair: attempt, Stage: r.stage(), ParentToolID: r.parentToolID,
				Request: req, Reply: resp.Message, Solution: sol, Warnings: slices.Clone(pr.Warnings),
				Tallies: tallies, Usage: resp.Usage,
			}})
		}
		if len(pr.Repair) == 0 || attempt >= retries || r.budget.remaining(true) == 0 {
			return pr, nil
		}
		comp.Turn.Notes = append(slices.Clip(notes), repairNote(pr.Repair))
	}
}

// request renders the composition on c, sends it (after the BeforeRequest
// hooks) and collects the reply, forwarding reasoning deltas. Usage is
// added to the run; the request sent is returned for the step.
func (r *run) request(ctx context.Context, comp *Composition, c agentctx.Context) (llm.Response, *llm.Request, error) {
	system, user := Render(comp, c)
	req := BuildRequest(comp, system, user)
	if r.a.Model.Key != "" {
		req.Model = r.a.Model.Key
	}
	req, err := r.tree.beforeRequest(ctx, req)
	if err != nil {
		return llm.Response{}, nil, err
	}
	resp, err := r.stream(ctx, req)
	if err != nil {
		return resp, req, fmt.Errorf("model: %w", err)
	}
	return resp, req, nil
}

// stream collects one model turn with llm.Collect semantics, emitting
// reasoning deltas as they arrive and reporting the usage to OnUsage (the
// caller adds it to the run: stream may run on a drain worker).
func (r *run) stream(ctx context.Context, req *llm.Request) (llm.Response, error) {
	seq := r.provider.Stream(ctx, req)
	resp, err := llm.Collect(func(yield func(llm.Event, error) bool) {
		for ev, err := range seq {
			if err == nil && ev.Kind == llm.EventReasoningDelta && ev.Text != "" {
				r.emit(Event{Type: EvReasoning, Text: ev.Text})
			}
			if !yield(ev, err) {
				return
			}
		}
	})
	if len(r.tree.rt.Hooks.OnUsage) > 0 {
		r.tree.onUsage(resp.Usage)
	}
	return resp, err
}

// parseReply extracts and parses one reply; an extraction failure is an
// unparsable solution.
func parseReply(comp *Composition, msg llm.Message) *ParseResult {
	raw, xw, err := Extract(comp, msg)
	if err != nil {
		return &ParseResult{Repair: []string{err.Error()}, RepairCode: CodeSolutionUnparsable, Warnings: xw}
	}
	pr := Parse(comp, raw)
	if pr == nil {
		return &ParseResult{Repair: []string{"the reply could not be parsed"}, RepairCode: CodeSolutionUnparsable, Warnings: xw}
	}
	pr.Warnings = append(xw, pr.Warnings...)
	return pr
}

// toOrdered converts any JSON-encodable Go value into ordered form.
func toOrdered(v any) (any, error) {
	b, err := agentctx.Encode(v)
	if err != nil {
		return nil, err
	}
	return agentctx.Decode(b)
}

// encodeText is the compact JSON of v, "" when it cannot be encoded.
func encodeText(v any) string {
	b, err := agentctx.Encode(v)
	if err != nil {
		return ""
	}
	return string(b)
}
