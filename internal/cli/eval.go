package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// EvalRequest is one `aite eval` run.
type EvalRequest struct {
	Book    string
	Model   Model
	Options eval.Options
	// MaxCost and MaxTokens are the estimate above which the run asks
	// before it starts: MaxCost (in the unit of the model's prices) when
	// the prices are known, MaxTokens (input + output) when they are not.
	MaxCost   float64
	MaxTokens int
	Yes       bool // start without asking, whatever the estimate
	Fresh     bool // discard the results of an earlier run of the same evaluation
	MaxSteps  int  // the command agent's --max-steps
	JSON      bool
	OutFile   string // write the report here instead of standard output
	In        io.Reader
	Out, Log  io.Writer
	// Interactive: standard input is a terminal (someone can confirm);
	// LogTerminal: standard error is one (the progress bar redraws).
	Interactive, LogTerminal bool
	// StoreRoot holds the results ("": beside the book, or the user's
	// cache directory when the book's folder is read-only).
	StoreRoot string
	TempDir   string
	Clock     func() time.Time
}

// Defaults of EvalRequest.
const (
	DefaultMaxCost   = 1.0
	DefaultMaxTokens = 2_000_000
)

// CheckEval validates the flags before any model is loaded or contacted.
func CheckEval(req EvalRequest) error {
	switch {
	case req.MaxCost < 0:
		return reading.Usagef("--max-cost must not be negative (got %g)", req.MaxCost)
	case req.MaxTokens < 0:
		return reading.Usagef("--max-tokens must not be negative (got %d)", req.MaxTokens)
	case req.MaxSteps < 1 || req.MaxSteps > 100:
		return reading.Usagef("--max-steps must be between 1 and 100 (got %d)", req.MaxSteps)
	}
	o := req.Options
	if o.PerFamily < 1 || o.PerFamily > eval.MaxPerFamily {
		return reading.Usagef("--tasks must be between 1 and %d (got %d)", eval.MaxPerFamily, o.PerFamily)
	}
	if o.RelayPairs < 0 || o.RelayPairs > eval.MaxRelayPairs {
		return reading.Usagef("--relay-pairs must be between 0 and %d (got %d)", eval.MaxRelayPairs, o.RelayPairs)
	}
	return nil
}

// Eval generates the tasks of a book, estimates what running them costs
// (and asks before a run above the limits), runs them with a progress
// bar, keeping every result so that an interrupted run goes on where it
// stopped, and writes the report.
func Eval(ctx context.Context, req EvalRequest) error {
	if err := CheckEval(req); err != nil {
		return err
	}
	book, plan, err := evalPlan(req)
	if err != nil {
		return err
	}
	if len(plan.Tasks) == 0 {
		why := "the book gives no tasks for these families"
		if len(plan.Notes) > 0 {
			why = strings.Join(plan.Notes, "; ")
		}
		return reading.Usagef("nothing to measure on %s: %s", req.Book, why)
	}
	info := modelInfo(req.Model)
	root, err := evalRoot(req)
	if err != nil {
		return err
	}
	store, err := eval.OpenStore(root, info, plan, req.Fresh)
	if err != nil {
		return ioErrorf("cannot keep the results in %s: %w", root, err)
	}
	est, err := confirmEval(req, book, plan, info, store)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	bar, budget := newEvalBar(req.Log, req.LogTerminal), newEvalBudget(req, est, cancel)
	e := &eval.Evaluation{Runner: EvalRunner{Model: req.Model, MaxSteps: req.MaxSteps}, Book: book, Plan: plan,
		Model: info, Source: req.Book, Store: store, TempDir: req.TempDir, Clock: req.Clock,
		OnProgress: func(p eval.Progress) { bar.update(p); budget.update(p) }}
	rep, err := e.Run(ctx)
	bar.end()
	if err != nil {
		return evalStopped(ctx, err, store)
	}
	return writeEvalReport(req, rep)
}

// evalPlan reads the book (with its item IDs) and generates the plan.
func evalPlan(req EvalRequest) (*eval.Book, *eval.Plan, error) {
	b, err := Open(req.Book, req.Log)
	if err != nil {
		return nil, nil, err
	}
	defer b.Close()
	src, err := b.s.Source(b.id)
	if err != nil {
		return nil, nil, err
	}
	ids, next, err := b.s.ItemIDs(b.id)
	if err != nil {
		return nil, nil, err
	}
	book, err := eval.NewBook(filepath.Base(req.Book), src, ids, next)
	if err != nil {
		return nil, nil, err
	}
	plan, err := eval.Generate(book, req.Options)
	if errors.Is(err, eval.ErrOptions) {
		return nil, nil, &reading.UsageError{Err: err}
	}
	return book, plan, err
}

// modelInfo names the model; its prices only when they are known.
func modelInfo(m Model) eval.ModelInfo {
	info := eval.ModelInfo{Key: m.Info.Key, ModelID: m.Info.ModelID}
	if m.Info.HasPricing() {
		p := m.Info.Pricing
		info.Pricing = &p
	}
	return info
}

// evalRoot is where the results are kept: .BOOK.md.aite/eval beside the
// book, or the user's cache directory when that cannot be written.
func evalRoot(req EvalRequest) (string, error) {
	if req.StoreRoot != "" {
		return req.StoreRoot, nil
	}
	root, err := editor.MakeStateDir(req.Book, "eval")
	if err == nil && writable(root) {
		return root, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", ioErrorf("cannot keep the results: %s is not writable and there is no cache directory (%v)",
			filepath.Join(editor.StateDir(req.Book), "eval"), err)
	}
	abs, _ := filepath.Abs(req.Book)
	h := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "aite", "eval", filepath.Base(req.Book)+"-"+hex.EncodeToString(h[:6])), nil
}

// writable reports whether dir takes files.
func writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".probe-")
	if err != nil {
		return false
	}
	f.Close()
	return os.Remove(f.Name()) == nil
}

// overheads measures the agents' fixed prompts for the estimate. The
// command agent (the server's bookEditor) sends the book tools' system
// prompt, their declarations and, in every turn with tools, the tool
// appendix of PLATFORM_API § 6.2 (each tool's description once more).
func overheads() eval.Overheads {
	decls := booktools.Registry(booktools.Env{}).LLMTools()
	tools, _ := json.Marshal(decls)
	var appendix strings.Builder
	for _, t := range decls {
		appendix.WriteString("- " + t.Name + ": " + t.Description + "\n")
	}
	return eval.Overheads{
		Command: llm.EstimateTokens(booktools.SystemPrompt) + llm.EstimateTokens(string(tools)) + llm.EstimateTokens(appendix.String()),
		Batch:   llm.EstimateTokens(cursoragent.SystemPrompt()) + 300, // plus the task and snapshot messages
	}
}

// confirmEval prints what the run will do and asks before one whose
// estimate is above the limits. It returns the estimate of what is left to
// run.
func confirmEval(req EvalRequest, book *eval.Book, plan *eval.Plan, info eval.ModelInfo, store *eval.Store) (eval.Estimate, error) {
	todo := *plan
	todo.Tasks = nil
	for _, t := range plan.Tasks {
		if _, done := store.Done(t); !done {
			todo.Tasks = append(todo.Tasks, t)
		}
	}
	est := book.Estimate(&todo, overheads(), info)
	fmt.Fprintf(req.Log, "aite eval: %d tasks (%d commands) in %d families on %s with %s; results in %s\n",
		len(plan.Tasks), plan.Commands(), len(plan.Families), req.Book, info.Key, store.Dir)
	for _, n := range plan.Notes {
		fmt.Fprintf(req.Log, "  note: %s\n", n)
	}
	if done := len(plan.Tasks) - len(todo.Tasks); done > 0 {
		fmt.Fprintf(req.Log, "  resuming: %d of %d tasks are done already\n", done, len(plan.Tasks))
	}
	if len(todo.Tasks) == 0 {
		return est, nil
	}
	cost := "cost unknown (no prices for this model: see aite models)"
	if est.Cost != nil {
		cost = fmt.Sprintf("cost ~%.4f", *est.Cost)
	}
	fmt.Fprintf(req.Log, "  estimate (rough, for a model that takes the direct path): ~%d model calls, ~%d input + ~%d output tokens, %s\n",
		est.Calls, est.InputTokens, est.OutputTokens, cost)
	over := ""
	switch {
	case est.Cost != nil && *est.Cost > req.MaxCost:
		over = fmt.Sprintf("the estimated cost %.4f is above --max-cost %g", *est.Cost, req.MaxCost)
	case est.Cost == nil && est.InputTokens+est.OutputTokens > req.MaxTokens:
		over = fmt.Sprintf("the estimated %d tokens are above --max-tokens %d", est.InputTokens+est.OutputTokens, req.MaxTokens)
	}
	switch {
	case over == "" || req.Yes:
		return est, nil
	case !req.Interactive:
		return est, reading.Usagef("not started: %s; run again with --yes to start anyway (or with fewer --tasks or --families)", over)
	case !confirmed(req.In, req.Log, fmt.Sprintf("  %s. Start?", over)):
		return est, reading.Usagef("not started")
	}
	return est, nil
}

// evalStopped explains a run that did not finish.
func evalStopped(ctx context.Context, err error, store *eval.Store) error {
	tasks, steps := store.Count()
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errOverBudget):
		err = cause
	case ctx.Err() != nil:
		err = errors.New("interrupted")
	}
	return fmt.Errorf("%w; %d tasks and %d relay steps are kept in %s: run the same command again to go on from there", err, tasks, steps, store.Dir)
}

// writeEvalReport writes the report as Markdown or JSON to standard output
// or to --out.
func writeEvalReport(req EvalRequest, rep *eval.Report) error {
	w := req.Out
	asJSON := req.JSON || strings.HasSuffix(strings.ToLower(req.OutFile), ".json")
	var f *os.File
	if req.OutFile != "" {
		var err error
		if f, err = os.Create(req.OutFile); err != nil {
			return ioErrorf("cannot write the report: %w", err)
		}
		w = f
	}
	var err error
	if asJSON {
		err = reading.WriteJSON(w, rep)
	} else {
		err = rep.WriteMarkdown(w)
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			fmt.Fprintf(req.Log, "aite eval: the report is in %s\n", req.OutFile)
		}
	}
	if err != nil {
		return ioErrorf("cannot write the report: %w", err)
	}
	return nil
}

// CompareEval writes two JSON reports side by side.
func CompareEval(out io.Writer, a, b string) error {
	ra, err := eval.LoadReport(a)
	if err != nil {
		return evalFileError(err)
	}
	rb, err := eval.LoadReport(b)
	if err != nil {
		return evalFileError(err)
	}
	return eval.WriteComparison(out, ra, rb)
}

func evalFileError(err error) error {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return &reading.IOError{Err: err}
	}
	return &reading.UsageError{Err: err}
}
