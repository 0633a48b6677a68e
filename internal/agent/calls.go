package agent

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/tool"
)

// outcome is the result of one executed call.
type outcome struct {
	text        string          // the tool.result string, also the model's tool output
	err         *ToolError      // an error result ({"tool","ok":false,…})
	edits       []tool.Edit     // applied document edits
	submitted   json.RawMessage // frontend: the /submit payload
	planChanged bool            // a plan tool changed the plan
	timeout     bool            // frontend: submit timeout
}

// errorOutcome is an error result with the § 7.1 JSON text.
func errorOutcome(name, code, text string) outcome {
	return outcome{text: errorText(name, code, text), err: &ToolError{Code: code, Message: text}}
}

// toolError is the § 7.1 error result as the model and the stream see it.
type toolError struct {
	Tool  string `json:"tool"`
	OK    bool   `json:"ok"`
	Code  string `json:"code"`
	Error string `json:"error"`
}

// errorText is the § 7.1 error result {"tool","ok":false,"code","error"}.
func errorText(name, code, text string) string {
	b, _ := marshal(toolError{Tool: name, OK: false, Code: code, Error: text}) // strings only: cannot fail
	return string(b)
}

// skipped is the result of a call that is not executed (§ 3.3 rule 6).
func skipped(name, why string) outcome {
	return errorOutcome(name, ToolCodeSkipped, "Not executed: "+why)
}

// execCalls executes the calls of a turn sequentially in model order
// (§ 3.3 rule 5) and returns their tool messages for the model. A frontend
// submit timeout gives the remaining calls skipped results and returns
// errSubmitTimeout (§ 4.1 step 5).
func (r *run) execCalls(ctx context.Context, stage string, rp *reply) ([]llm.Message, error) {
	var out []llm.Message
	r.turnCalls = rp.calls
	defer func() { r.turnCalls = nil }()
	for i, c := range rp.calls {
		if r.em.over() {
			return out, errEnded
		}
		start := time.Now()
		res, err := r.execCall(ctx, c)
		if err != nil {
			return out, err
		}
		msg, err := r.deliver(ctx, stage, c, res, time.Since(start))
		if err != nil {
			return out, err
		}
		out = append(out, msg)
		if res.timeout {
			for _, rest := range rp.calls[i+1:] {
				if _, err := r.deliver(ctx, stage, rest, skipped(rest.name, "a frontend tool timed out"), 0); err != nil {
					return out, err
				}
			}
			return out, errSubmitTimeout
		}
	}
	return out, nil
}

// execCall executes one call according to its kind.
func (r *run) execCall(ctx context.Context, c *callState) (outcome, error) {
	if err := ctx.Err(); err != nil {
		return outcome{}, err
	}
	if c.kind == CallUnknown {
		return errorOutcome(c.name, ToolCodeNotEnabled, tool.NotEnabled(c.name, c.offered).Text), nil
	}
	if r.toolCalls >= r.agent.Budget.Tool.MaxCalls {
		return outcome{}, failf(CodeBudgetExceeded, "Budget exceeded: tool.maxCalls=%d", r.agent.Budget.Tool.MaxCalls)
	}
	r.toolCalls++
	switch c.kind {
	case CallAction:
		return outcome{text: "OK"}, nil // § 4.2: never waits
	case CallFrontend:
		return r.waitFrontend(ctx, c)
	}
	if r.confirmsEdits() && previewer(c) != nil {
		if res, done, err := r.confirmCall(ctx, c); done || err != nil {
			return res, err
		}
	}
	return r.runBackend(ctx, c)
}

// deliver emits a call's result in the order of § 3.3 rule 5
// (request.submit → document.edit* → result → plan.update), stores its
// tool message and returns it.
func (r *run) deliver(ctx context.Context, stage string, c *callState, res outcome, took time.Duration) (llm.Message, error) {
	if res.submitted != nil {
		r.em.emit(Event{Type: Submitted, ToolID: c.id, Answer: res.submitted})
	}
	for _, e := range res.edits {
		r.em.emit(Event{Type: DocumentEdit, ToolID: c.id, Edit: &e})
	}
	r.emitResult(c, res)
	if res.planChanged {
		if err := r.publishPlan(ctx); err != nil {
			return llm.Message{}, err
		}
	}
	if err := r.saveTool(ctx, stage, c, res.text, took); err != nil {
		return llm.Message{}, err
	}
	return llm.Message{Role: llm.RoleTool, ToolCallID: c.id, Name: c.name, Content: res.text}, nil
}

// emitResult emits the one result of a call and forgets it as pending.
func (r *run) emitResult(c *callState, res outcome) {
	r.em.emit(Event{Type: ToolResult, ToolID: c.id, Result: &Result{Text: res.text, Error: res.err}})
	r.pending = slices.DeleteFunc(r.pending, func(p *callState) bool { return p == c })
}

// runBackend runs a backend call: argument templates, then the tool with
// the tool timeout and retries on timeout or runtime failure (never on
// invalid arguments) (§ 7.1).
func (r *run) runBackend(ctx context.Context, c *callState) (outcome, error) {
	t := c.entry
	args := c.arguments()
	if t.builtin != nil && t.builtin.direct {
		return t.builtin.call(ctx, r, args)
	}
	args, err := r.expandTemplates(args)
	if err != nil {
		return errorOutcome(c.name, ToolCodeInvalidArguments, err.Error()), nil
	}
	if t.name == SkillRunScript {
		r.discloseFor(args)
	}
	b := r.agent.Budget.Tool
	run, err := callTool(ctx, c.id, c.name, func(ctx context.Context) (tool.Result, error) { return invoke(ctx, r, c, args) },
		b.Timeout(), b.RetryCount, func(p tool.Progress) { r.em.emit(Event{Type: ToolProgress, ToolID: c.id, Progress: &p}) },
		r.log)
	if err != nil {
		return outcome{}, err
	}
	res := run.outcome(c.name, b.TimeoutMs)
	if res.err == nil {
		r.results[t.name] = res.text
	}
	return res, nil
}

// invoke calls the Go tool or the built-in of c; it runs in its own
// goroutine and must not change the run's state.
func invoke(ctx context.Context, r *run, c *callState, args string) (tool.Result, error) {
	t := c.entry
	if t.builtin != nil {
		o, err := t.builtin.call(ctx, r, args)
		return o.result(), err
	}
	return t.impl.Call(ctx, json.RawMessage(args))
}

// result is the outcome of a built-in as a tool's result.
func (o outcome) result() tool.Result {
	if o.err != nil {
		return tool.Result{Text: o.err.Message, IsError: true, Code: o.err.Code, Edits: o.edits}
	}
	return tool.Result{Text: o.text, Edits: o.edits}
}
