package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/tool"
)

// Defaults of the Runner fields.
const (
	DefaultMemoryK         = 20
	DefaultFrontendTimeout = 300 * time.Second
)

// errSubmitTimeout ends a run with run.complete "timeout" (§ 4.1 step 5).
var errSubmitTimeout = errors.New("agent: frontend submit timeout")

// errEnded stops a run whose consumer stopped reading: nothing more is
// emitted.
var errEnded = errors.New("agent: the run's consumer stopped reading")

// errRunTimeout is the cancel cause of the run deadline.
var errRunTimeout = errors.New("agent: run timeout")

// failure is an error that ends the run with run.error info. TaskCode, when
// set, is the task.fail code of the active task (else info.Code).
type failure struct {
	info     ErrorInfo
	taskCode string
}

func (f *failure) Error() string { return f.info.Code + ": " + f.info.Message }

// failf returns a non-retriable failure.
func failf(code, format string, args ...any) *failure {
	return &failure{info: ErrorInfo{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// internalf returns an internal_error failure.
func internalf(format string, args ...any) *failure {
	return failf(CodeInternalError, format, args...)
}

// providerModel is a resolved modelKey.
type providerModel struct {
	p llm.Provider
	m models.Model
}

// run is the state of one Execute call. Only the run's goroutine changes
// it; tool goroutines read its definitions (spec, agent), Submit never
// touches it.
type run struct {
	e     *Runner
	spec  Spec
	agent *agentdef.AgentDef // normalized: the defaults filled in
	em    *emitter
	log   *slog.Logger

	deadline *deadline
	history  []llm.Message // the memory window (§ 5.2)
	user     llm.Message
	backends map[string]tool.Tool // Spec.Tools, by lowercase name
	models   map[string]providerModel

	modelCalls, toolCalls int
	nativeCalls           int             // call_native_{k}
	callIDs               map[string]bool // the call ids of the run
	nReasoning, nContent  int             // block counters, as the assembler counts them
	inTurn                bool
	pending               []*callState // started calls without a result, in start order
	turnCalls             []*callState // the calls of the turn being executed

	results map[string]string // latest successful result text per tool (argument templates)
	answer  string            // the text of the last reply (End.Answer)
	usage   llm.Usage         // the usage of every model call so far
	// outOfSteps: REACT used all its steps with tools (End.OutOfSteps)
	outOfSteps bool
	disclosed  []string      // skills disclosed in this run, in order
	plan       *plan         // PLAN_EXECUTE only
	continued  bool          // the plan continues an earlier one
	task       string        // the active task id
	execMsgs   []llm.Message // the execute history (summary stage)
}

// Run runs spec to its end and streams its events: the last one is
// RunComplete or RunError. A non-nil error is yielded, alone, only for a
// failure before the run started (a bad spec, a storage failure while
// loading the memory window). Stopping the iteration cancels the run.
//
// An agent with a protocol block runs through the protocol runtime instead
// of the modes (AGENT_PROTOCOL § 5).
func (e *Runner) Run(ctx context.Context, spec Spec) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		runCtx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := func() { cancel(errStopped) }
		if spec.Agent.Protocol != nil {
			p, err := e.newProtoRun(ctx, spec, cancel)
			if err != nil {
				yield(Event{}, err)
				return
			}
			funnel(runCtx, yield, stop, p.execute)
			return
		}
		r, err := e.newRun(ctx, spec, direct(yield, stop))
		if err != nil {
			yield(Event{}, err)
			return
		}
		r.deadline = startDeadline(r.agent.Budget.RunTimeout(), func() { cancel(errRunTimeout) })
		defer r.deadline.stop()
		r.end(runCtx, r.safeExecute(runCtx))
	}
}

// safeExecute runs the mode; a panic becomes an internal_error.
func (r *run) safeExecute(ctx context.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("engine panic", "panic", p, "stack", string(debug.Stack()))
			err = internalf("panic: %v", p)
		}
	}()
	return r.execute(ctx)
}

// check refuses a spec the runner cannot run.
func (e *Runner) check(spec Spec) error {
	switch {
	case spec.Defs == nil:
		return errors.New("agent: spec without definitions")
	case e.Memory == nil || e.Models == nil:
		return errors.New("agent: Memory and Models are required")
	case spec.RunID == "" || spec.ChatID == "":
		return errors.New("agent: spec without run id or chat id")
	}
	return nil
}

// newRun checks spec and prepares the run: backends, memory window, plan
// scope and the stored user message.
func (e *Runner) newRun(ctx context.Context, spec Spec, em *emitter) (*run, error) {
	if err := e.check(spec); err != nil {
		return nil, err
	}
	agent := normalize(spec.Agent)
	r := &run{e: e, spec: spec, agent: &agent, em: em, log: e.logger().With("runId", spec.RunID),
		models: map[string]providerModel{}, results: map[string]string{}, callIDs: map[string]bool{}}
	switch {
	case agent.Plain != nil && agent.Mode == agentdef.ModeOneshot:
	case agent.React != nil && agent.Mode == agentdef.ModeReact:
	case agent.PlanExecute != nil && agent.Mode == agentdef.ModePlanExecute:
		r.plan = &plan{id: "plan_" + spec.RunID}
	default:
		return nil, fmt.Errorf("agent: agent %q has no block for mode %q", agent.Key, agent.Mode)
	}
	r.backends = lowerKeys(spec.Tools)
	if err := r.loadHistory(ctx); err != nil {
		return nil, err
	}
	if err := r.loadPlan(ctx); err != nil {
		return nil, err
	}
	if err := r.saveUser(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// execute runs the agent's mode.
func (r *run) execute(ctx context.Context) error {
	switch r.agent.Mode {
	case agentdef.ModeOneshot:
		return r.oneshot(ctx)
	case agentdef.ModeReact:
		return r.react(ctx)
	}
	return r.planExecute(ctx)
}

// end emits the terminal event for the outcome err of execute (§ 3.5).
func (r *run) end(ctx context.Context, err error) {
	switch {
	case r.em.over():
		r.log.Warn("the run's consumer stopped reading", "err", err)
		return
	case err == nil:
		r.em.emit(Event{Type: RunComplete, End: r.ending(FinishStop)})
		return
	case errors.Is(err, errSubmitTimeout):
		r.em.emit(Event{Type: RunComplete, End: r.ending(FinishTimeout)})
		return
	}
	f := r.failure(ctx, err)
	r.log.Info("run failed", "code", f.info.Code, "message", f.info.Message)
	if r.inTurn {
		r.em.emit(Event{Type: TurnEnd})
		r.inTurn = false
	}
	for _, c := range slices.Clone(r.pending) {
		r.emitResult(c, skipped(c.name, "the run failed ("+f.info.Code+")"))
	}
	r.pending = nil
	if r.task != "" {
		code := f.taskCode
		if code == "" {
			code = f.info.Code
		}
		r.em.emit(Event{Type: TaskEnd, Task: &Task{ID: r.task, Status: TaskFailed,
			Error: &ErrorInfo{Code: code, Message: f.info.Message}}})
		r.task = ""
	}
	info := f.info
	end := r.ending("")
	end.Error = &info
	r.em.emit(Event{Type: RunError, End: end})
}

// ending is the End of the run with finishReason: its answer (the last
// reply's text), whether the steps ran out, and its usage.
func (r *run) ending(finishReason string) *End {
	return &End{FinishReason: finishReason, Answer: r.answer, OutOfSteps: r.outOfSteps, Usage: r.usage}
}

// failure converts err into the run.error to emit: a done run context wins
// (run_timeout or run_aborted), then a *failure, else internal_error.
func (r *run) failure(ctx context.Context, err error) *failure {
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errRunTimeout) {
			return &failure{info: ErrorInfo{Code: CodeRunTimeout, Retriable: true,
				Message: fmt.Sprintf("Run timeout: budget.runTimeoutMs=%d", r.agent.Budget.RunTimeoutMs)}}
		}
		return &failure{info: ErrorInfo{Code: CodeRunAborted, Message: "The run was aborted", Retriable: true}}
	}
	var f *failure
	if errors.As(err, &f) {
		return f
	}
	return internalf("%v", err)
}

func (e *Runner) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (e *Runner) now() time.Time {
	if e.Clock != nil {
		return e.Clock()
	}
	return time.Now()
}

func (e *Runner) memoryK() int {
	if e.MemoryK > 0 {
		return e.MemoryK
	}
	return DefaultMemoryK
}

func (e *Runner) frontendTimeout() time.Duration {
	if e.FrontendTimeout > 0 {
		return e.FrontendTimeout
	}
	return DefaultFrontendTimeout
}

// provider resolves a modelKey once per run.
func (r *run) provider(key string) (providerModel, error) {
	if pm, ok := r.models[key]; ok {
		return pm, nil
	}
	p, m, err := r.e.Models.Provider(key)
	if err != nil {
		return providerModel{}, failf(CodeModelError, "model %q: %v", key, err)
	}
	pm := providerModel{p: p, m: m}
	r.models[key] = pm
	return pm, nil
}

func lowerKeys(m map[string]tool.Tool) map[string]tool.Tool {
	out := make(map[string]tool.Tool, len(m))
	for k, t := range m {
		out[lower(k)] = t
	}
	return out
}
