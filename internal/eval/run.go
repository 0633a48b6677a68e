package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
)

// Evaluation runs a plan with a model and scores it.
type Evaluation struct {
	Runner Runner
	Book   *Book
	Plan   *Plan
	Model  ModelInfo
	// Source is the path of the user's book: each task works on a copy of
	// Book's bytes with Source's state file (its item IDs), never on Source.
	Source string
	Store  *Store
	// TempDir holds the copies ("" = the system's).
	TempDir string
	// Clock times the runs (time.Now when nil).
	Clock func() time.Time
	// OnProgress, when set, is told about every finished command.
	OnProgress func(Progress)
}

// Progress is reported after every command (a task, or a relay step).
type Progress struct {
	Done, Total int // commands
	Task        string
	Step        int // 1-based within a relay; 0 for a task
	Result      Verdict
	Calls       int
	Tokens      int     // input + output
	Cost        float64 // so far, 0 when the prices are unknown
	Resumed     bool    // taken from the store, not run now
}

// Commands returns the number of agent runs a plan takes.
func (p *Plan) Commands() int {
	n := 0
	for _, t := range p.Tasks {
		n += t.commands()
	}
	return n
}

// Run runs every task not yet in the store, in plan order, and returns
// the report. An error of the runner stops it; the results so far are in
// the store and the next Run goes on from there.
func (e *Evaluation) Run(ctx context.Context) (*Report, error) {
	prog := &progress{e: e, total: e.Plan.Commands()}
	var results []TaskResult
	for _, t := range e.Plan.Tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r, ok := e.Store.Done(t); ok {
			prog.resumed(r)
			results = append(results, r)
			continue
		}
		var r TaskResult
		var err error
		if t.Family == Relay {
			r, err = e.relay(ctx, t, prog)
		} else {
			r, err = e.task(ctx, t)
			if err == nil {
				prog.finished(t.ID, 0, r.Result, r.Calls, r.usage(), false)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.ID, err)
		}
		if err := e.Store.SaveTask(r); err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return NewReport(e.Plan, e.Model, results, e.Store.Dir), nil
}

func (e *Evaluation) now() time.Time {
	if e.Clock != nil {
		return e.Clock()
	}
	return time.Now()
}

// run runs one command on the book at path and times it.
func (e *Evaluation) run(ctx context.Context, job Job, id string) (Outcome, float64, string, error) {
	log, logPath, err := e.Store.Log(id)
	if err != nil {
		return Outcome{}, 0, "", err
	}
	defer log.Close()
	fmt.Fprintf(log, "── %s ──\n%s\n\n", id, strings.TrimSpace(jobText(job)))
	job.Log = log
	start := e.now()
	o, err := e.Runner.Run(ctx, job)
	secs := e.now().Sub(start).Seconds()
	fmt.Fprintf(log, "\n── answer ──\n%s\n", o.Answer)
	if len(o.Pointers) > 0 {
		fmt.Fprintf(log, "pointers: %s\n", strings.Join(o.Pointers, ", "))
	}
	fmt.Fprintf(log, "(finished: %v %s; %d model calls)\n\n", o.Done, o.Failure, o.Calls)
	return o, secs, logPath, err
}

// taskPrompt is what a task asks, as reported (a relay: its size).
func taskPrompt(t Task) string {
	switch {
	case t.Walk != nil:
		return jobText(Job{Walk: t.Walk})
	case t.Family == Relay:
		return fmt.Sprintf("%d edit commands, each followed by its inverse", len(t.Steps)/2)
	}
	return t.Prompt
}

func jobText(j Job) string {
	if j.Walk != nil {
		return fmt.Sprintf("cursor agent, keywords %v, mode %s %d: %s", j.Walk.Keywords, j.Walk.Mode, j.Walk.N, j.Walk.Goal)
	}
	return j.Prompt
}

// task runs one task on a fresh copy of the book and scores it.
func (e *Evaluation) task(ctx context.Context, t Task) (TaskResult, error) {
	dir, err := os.MkdirTemp(e.TempDir, "aite-eval-")
	if err != nil {
		return TaskResult{}, err
	}
	defer os.RemoveAll(dir)
	path, err := e.copyBook(dir)
	if err != nil {
		return TaskResult{}, err
	}
	job := Job{Book: path, Prompt: t.Prompt, Write: t.Family.edits(), Walk: t.Walk}
	o, secs, logPath, err := e.run(ctx, job, t.ID)
	if err != nil {
		return TaskResult{}, err
	}
	r := TaskResult{ID: t.ID, Family: t.Family, Prompt: taskPrompt(t), Gold: goldText(t), Commands: 1, Log: logPath}
	r.setOutcome(o, secs)
	var s score
	if t.Family.edits() {
		s, err = e.scoreEditTask(t, o, path)
		if err != nil {
			return TaskResult{}, err
		}
	} else {
		s = e.Book.scoreQuestion(t, o)
	}
	r.Result, r.Reason, r.Answer = s.verdict, s.reason, s.answer
	return r, nil
}

// scoreEditTask compares the copy with the gold edit and undoes the run.
func (e *Evaluation) scoreEditTask(t Task, o Outcome, path string) (score, error) {
	ids, next := e.Book.doc.ItemIDs()
	expected, err := applyEdit(e.Book.src, ids, next, *t.Gold.Edit)
	if err != nil {
		return score{}, err
	}
	st := bookState{before: e.Book.src, expected: expected}
	if st.after, err = os.ReadFile(path); err != nil {
		return score{}, err
	}
	if !bytes.Equal(st.after, st.before) {
		st.undone = st.after
		if _, st.undoErr = editor.UndoCommand(path, false, false); st.undoErr == nil {
			st.undone, err = os.ReadFile(path)
		}
	}
	return scoreEdit(o, st), err
}

// copyBook writes the book into dir under its own name, with the state
// file of the user's book (so the copy's items get the same IDs), and
// returns the copy's path.
func (e *Evaluation) copyBook(dir string) (string, error) {
	path := filepath.Join(dir, filepath.Base(e.Source))
	if err := os.WriteFile(path, e.Book.src, 0o644); err != nil {
		return "", err
	}
	state, err := os.ReadFile(editor.StatePath(e.Source))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return path, nil
	case err != nil:
		return "", err
	}
	if err := os.MkdirAll(editor.StateDir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(editor.StatePath(path), state, 0o644)
}

// goldText shows a task's gold.
func goldText(t Task) string {
	switch {
	case t.Gold.Count != nil:
		return fmt.Sprint(*t.Gold.Count)
	case t.Gold.Edit != nil:
		return fmt.Sprintf("%s %s", t.Gold.Edit.Op, t.Gold.Edit.Pointer)
	case t.Family == Relay:
		return "the original book"
	}
	return strings.Join(t.Gold.Pointers, ", ")
}

// progress counts finished commands for Evaluation.OnProgress.
type progress struct {
	e     *Evaluation
	total int
	done  int
	calls int
	used  int
	cost  float64
}

func (p *progress) finished(id string, step int, v Verdict, calls int, u llm.Usage, resumed bool) {
	p.done++
	p.calls += calls
	p.used += u.InputTokens + u.OutputTokens
	if c := p.e.Model.cost(u); c != nil {
		p.cost += *c
	}
	if p.e.OnProgress != nil {
		p.e.OnProgress(Progress{Done: p.done, Total: p.total, Task: id, Step: step, Result: v, Calls: p.calls,
			Tokens: p.used, Cost: p.cost, Resumed: resumed})
	}
}

// resumed reports a task taken from the store (a relay: each step).
func (p *progress) resumed(r TaskResult) {
	if len(r.Steps) == 0 {
		p.finished(r.ID, 0, r.Result, r.Calls, r.usage(), true)
		return
	}
	for _, s := range r.Steps {
		p.finished(r.ID, s.Index, s.Result, s.Calls, s.usage(), true)
	}
}
