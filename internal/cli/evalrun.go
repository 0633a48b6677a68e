package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/reading"
)

// EvalRunner is the evaluation's way to the agents: every job runs exactly
// as `aite ask --json` (--yes when the job writes, --dry-run otherwise) or
// `aite navigate --json --headings=false` would on the book copy, with the
// model behind a meter that counts every call, the cursor agent's
// included. Through Ask the jobs run on the one agent runtime
// (internal/agent) with the agent the server runs (DefaultAgent).
type EvalRunner struct {
	Model    Model
	MaxSteps int // the command agent's --max-steps; 0: the default
}

var _ eval.Runner = EvalRunner{}

// Run runs one job. Model failures on the task are in the outcome; an
// error means the evaluation cannot go on: the book copy could not be
// read or written, the run was canceled, or the model refuses every
// request (credentials, an unknown model, an unreachable endpoint).
func (r EvalRunner) Run(ctx context.Context, job eval.Job) (eval.Outcome, error) {
	meter := &eval.Meter{Provider: r.Model.Provider}
	m := Model{Provider: meter, Info: r.Model.Info}
	var o eval.Outcome
	var err error
	if job.Walk != nil {
		o, err = r.navigate(ctx, m, job)
	} else {
		o, err = r.ask(ctx, m, job)
	}
	o.Calls, o.Usage, o.EstimatedCalls = meter.Totals()
	switch perr := meter.Err(); {
	case ctx.Err() != nil:
		return o, ctx.Err()
	case perr != nil && eval.Fatal(perr):
		return o, fmt.Errorf("the model %s cannot be used: %w", r.Model.Info.Key, perr)
	}
	return o, err
}

// ask runs the command agent as `aite ask --json` does.
func (r EvalRunner) ask(ctx context.Context, m Model, job eval.Job) (eval.Outcome, error) {
	var out bytes.Buffer
	err := Ask(ctx, AskRequest{Book: job.Book, Command: job.Prompt, Model: m, Yes: job.Write, DryRun: !job.Write,
		In: strings.NewReader(""), Out: &out, Log: job.Log, MaxSteps: r.MaxSteps, JSON: true})
	var res AskJSON
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
		return eval.Outcome{}, fmt.Errorf("aite ask on the copy %s printed no result: %w", job.Book, errors.Join(err, jerr))
	}
	o := eval.Outcome{Answer: res.Answer, Done: err == nil, Edits: len(res.Edits), Written: res.Written}
	var ioe *reading.IOError
	if errors.As(err, &ioe) {
		return o, err
	}
	if err != nil {
		o.Failure = err.Error()
	}
	return o, nil
}

// navigate runs the cursor agent as `aite navigate --json` does, over the
// items holding the keywords, headings left out.
func (r EvalRunner) navigate(ctx context.Context, m Model, job eval.Job) (eval.Outcome, error) {
	var out bytes.Buffer
	w := job.Walk
	err := Navigate(ctx, NavigateRequest{Book: job.Book, Task: w.Goal, Keywords: w.Keywords, Mode: w.Mode, N: w.N,
		NGiven: w.Mode == "nth", Model: m, JSON: true, Out: &out, Log: job.Log})
	var res NavigateJSON
	if out.Len() == 0 {
		if llm.KindOf(err) != "" {
			return eval.Outcome{Failure: err.Error()}, nil // the model failed the walk
		}
		return eval.Outcome{}, fmt.Errorf("aite navigate on the copy %s: %w", job.Book, err)
	}
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
		return eval.Outcome{}, fmt.Errorf("aite navigate on the copy %s printed no result: %w", job.Book, jerr)
	}
	o := eval.Outcome{Done: res.Success, Answer: res.Summary}
	if !res.Success {
		o.Failure = res.Summary
	}
	switch {
	case len(res.Matches) > 0:
		for _, t := range res.Matches {
			o.Pointers = append(o.Pointers, t.Pointer.String())
		}
	case res.Pointer != "":
		o.Pointers = []string{res.Pointer}
	}
	return o, nil
}
