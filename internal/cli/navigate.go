package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/search"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// NavigateModes are the --mode names of `aite navigate`, in help order.
var NavigateModes = []string{"first", "nth", "last", "collect", "summary"}

var navigateModes = map[string]cursoragent.Mode{
	"first": cursoragent.FirstMatch, "firstmatch": cursoragent.FirstMatch,
	"nth":     cursoragent.Nth,
	"last":    cursoragent.Last,
	"collect": cursoragent.Collect, "collecttotargetset": cursoragent.Collect,
	"summary": cursoragent.Aggregate, "aggregate": cursoragent.Aggregate, "aggregatesummary": cursoragent.Aggregate,
}

// NavigateRequest runs the cursor agent once.
type NavigateRequest struct {
	Book, Task string
	Keywords   []string
	Entry      string // walk the items naming this codex entry
	Targets    string // walk the items of this saved target set
	Mode       string
	N          int
	NGiven     bool // --n was given
	Headings   bool
	MaxBatches int    // 0: the agent's default
	Resume     string // continue this task instead of starting one
	Save       string // save the collected items as a target set of this name
	Model      Model
	JSON       bool
	Out, Log   io.Writer
}

// CheckNavigate validates a navigate request before any model is loaded
// or contacted, with the command line's own names for the modes.
func CheckNavigate(req NavigateRequest) error {
	if req.Resume != "" {
		if req.Task != "" || len(req.Keywords) > 0 || req.Entry != "" || req.Targets != "" || req.NGiven || req.Save != "" {
			return reading.Usagef("--resume continues a task as it was started: give no TASK, --keywords, --entry, --targets, --n or --save with it")
		}
		return checkBatches(req.MaxBatches)
	}
	mode, ok := navigateModes[strings.ToLower(strings.TrimSpace(req.Mode))]
	switch {
	case strings.TrimSpace(req.Task) == "":
		return reading.Usagef("the TASK is empty: say what to look for, e.g. \"a paragraph where Varya speaks\"")
	case !ok:
		return reading.Usagef("unknown --mode %q; valid modes: %s", req.Mode, strings.Join(NavigateModes, ", "))
	case mode == cursoragent.Nth && req.N < 1:
		return reading.Usagef("--mode nth needs --n N with N ≥ 1 (got %d)", req.N)
	case mode != cursoragent.Nth && req.NGiven:
		return reading.Usagef("--n is only for --mode nth")
	case req.Save != "" && mode != cursoragent.Collect:
		return reading.Usagef("--save keeps what --mode collect collects; it needs --mode collect")
	case btoi(len(req.Keywords) > 0)+btoi(req.Targets != "")+btoi(req.Entry != "") > 1:
		return reading.Usagef("give one of --keywords, --entry and --targets")
	}
	for _, k := range req.Keywords {
		if len(textnorm.Terms(k)) == 0 {
			return reading.Usagef("--keywords %q has no word to look for", k)
		}
	}
	return checkBatches(req.MaxBatches)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func checkBatches(n int) error {
	if n < 0 || n > cursoragent.MaxSteps {
		return reading.Usagef("--max-batches must be between 1 and %d (got %d)", cursoragent.MaxSteps, n)
	}
	return nil
}

// NavigateJSON is the JSON shape of `aite navigate --json`: the cursor
// agent's result, every match of a collect task (pointer, kind, excerpt)
// and how to continue an incomplete walk.
type NavigateJSON struct {
	cursoragent.Result
	Matches  []cursor.Target `json:"matches,omitempty"`
	Saved    string          `json:"savedTargetSet,omitempty"`
	Continue string          `json:"continue,omitempty"`
}

// ErrNoSuccess is returned (exit code 1) by a navigate task that did not
// succeed: nothing found, or an incomplete walk.
var ErrNoSuccess = errors.New("the task did not succeed")

// Navigate runs a cursor-agent task over a keyword cursor, a saved target
// set or a full scan (or resumes one), printing one progress line per batch
// on Log and the result on Out. Task states are kept in the book's state
// directory, so a walk stopped by its batch limit can be resumed later.
func Navigate(ctx context.Context, req NavigateRequest) error {
	if err := CheckNavigate(req); err != nil {
		return err
	}
	b, err := Open(req.Book, req.Log)
	if err != nil {
		return err
	}
	defer b.Close()
	a := req.Model.CursorAgent(b)
	a.Store = cursoragent.FileStore{Book: req.Book}
	a.OnProgress = func(p cursoragent.Progress) {
		fmt.Fprintf(req.Log, "batch %d of ~%d: %s … %s (%d items), %d matches so far\n",
			p.Batch, p.Estimated, p.First, p.Last, p.Items, p.Evidence)
	}
	res, err := b.runTask(ctx, a, req)
	if err != nil {
		return err
	}
	out := NavigateJSON{Result: res}
	if res.TargetSet != "" {
		v, err := b.s.Targets(b.id, res.TargetSet)
		if err != nil {
			return err
		}
		out.Matches = v.Items
		if req.Save != "" {
			if _, err := b.s.SaveTargetSet(b.id, res.TargetSet, req.Save, req.Task); err != nil {
				return &reading.IOError{Err: err}
			}
			out.Saved = req.Save
		}
	}
	if res.StoppedBy == "step_limit" {
		out.Continue = fmt.Sprintf("aite navigate %s --resume %s", req.Book, res.TaskID)
	}
	if req.JSON {
		err = reading.WriteJSON(req.Out, out)
	} else {
		writeNavigate(req.Out, out)
	}
	fmt.Fprintf(req.Log, "(%d model calls, %d input + %d output tokens, %d batches, %d items read)\n",
		res.Usage.Calls, res.Usage.InputTokens, res.Usage.OutputTokens, res.Usage.Batches, res.Usage.Items)
	if err == nil && !res.Success {
		err = &reading.UsageError{Err: fmt.Errorf("%w: %s", ErrNoSuccess, reading.OneLine(res.Summary))}
	}
	return err
}

// runTask starts the task, or resumes a stored one on this book.
func (b *Book) runTask(ctx context.Context, a *cursoragent.Agent, req NavigateRequest) (cursoragent.Result, error) {
	if req.Resume != "" {
		st, err := a.Store.LoadTask(ctx, req.Resume)
		if err != nil {
			return cursoragent.Result{}, reading.Usagef("%v (tasks are kept in %s)", err, filepath.Join(editor.StateDir(req.Book), "tasks"))
		}
		st.Task.Book = b.id // the path may be spelled otherwise this time
		if req.MaxBatches > 0 {
			st.Task.Limits.MaxSteps = req.MaxBatches
		}
		if err := a.Store.SaveTask(ctx, st); err != nil {
			return cursoragent.Result{}, &reading.IOError{Err: err}
		}
		res, err := a.Resume(ctx, req.Resume)
		return res, taskError(err)
	}
	spec, err := b.taskCursor(req)
	if err != nil {
		return cursoragent.Result{}, err
	}
	res, err := a.Run(ctx, cursoragent.Task{Book: b.id, Cursor: spec, Goal: req.Task,
		Mode: navigateModes[strings.ToLower(strings.TrimSpace(req.Mode))], N: req.N,
		Limits: cursoragent.Limits{MaxSteps: req.MaxBatches}})
	return res, taskError(err)
}

func taskError(err error) error {
	if errors.Is(err, cursoragent.ErrTask) {
		return reading.Usagef("%v", err)
	}
	return err
}

// taskCursor is the cursor a task walks: the items of a saved target set,
// the items holding the keywords, or every item.
func (b *Book) taskCursor(req NavigateRequest) (cursor.Spec, error) {
	spec := cursor.NewSpec(cursor.FullScan)
	switch {
	case req.Targets != "":
		ids, gone, err := b.SavedSet(req.Targets)
		if err != nil {
			return spec, err
		}
		reading.NoteGone(req.Log, req.Targets, gone, len(ids))
		spec = cursor.NewSpec(cursor.Search)
		spec.IDs, spec.Description = ids, "the saved target set "+req.Targets
	case len(req.Keywords) > 0:
		spec = cursor.NewSpec(cursor.Keyword)
		spec.Keywords = req.Keywords
	case req.Entry != "":
		hits, err := b.s.FindEntry(b.id, req.Entry, search.Options{IncludeHeadings: true})
		if err != nil {
			return spec, codexError(err)
		}
		spec = cursor.NewSpec(cursor.Search)
		spec.Description = "the items naming " + hits.Entry.Name
		for _, r := range hits.Results {
			spec.IDs = append(spec.IDs, r.ID)
		}
	}
	spec.IncludeHeadings = req.Headings
	return spec, nil
}

// SavedSet returns the IDs of a saved target set of the book that still
// name items, in document order, and how many of its items no longer exist.
func (b *Book) SavedSet(name string) ([]int, int, error) {
	return sessionReader{s: b.s, id: b.id}.savedSet(name)
}

// writeNavigate writes a result for people: the summary, the answer, every
// match of a collect task, what could not be judged and how to continue.
func writeNavigate(w io.Writer, out NavigateJSON) {
	res := out.Result
	fmt.Fprintln(w, res.Summary)
	if res.Pointer != "" {
		fmt.Fprintf(w, "\n%s\n%s\n", res.Pointer, res.Excerpt)
	}
	if len(out.Matches) > 0 {
		fmt.Fprintln(w)
		rows := make([][]string, len(out.Matches))
		for i, m := range out.Matches {
			rows[i] = []string{m.Pointer.String(), string(m.Kind), reading.OneLine(m.Excerpt)}
		}
		reading.WriteColumns(w, rows, "")
	}
	if out.Saved != "" {
		fmt.Fprintf(w, "\nsaved as the target set %q (aite targets BOOK %s lists it; --targets %s walks it)\n", out.Saved, out.Saved, out.Saved)
	}
	if len(res.Unjudged) > 0 {
		fmt.Fprintln(w, "\nnot judged:")
		for _, u := range res.Unjudged {
			fmt.Fprintf(w, "  %s … %s (%d items)\n", u.First, u.Last, u.Items)
		}
	}
	if out.Continue != "" {
		fmt.Fprintf(w, "\nto read on: %s\n", out.Continue)
	}
}
