package cursoragent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
)

// ErrTask is wrapped by errors in a task's definition.
var ErrTask = errors.New("invalid cursor-agent task")

// Agent runs cursor-agent tasks over the books of an editor session.
type Agent struct {
	Provider llm.Provider
	Model    string
	Session  *editor.Session
	// Store keeps task states; a MemStore when nil.
	Store Store
	// JSONSchema asks for native structured output (response_format);
	// without it the decision is requested as a forced tool call.
	JSONSchema bool
	// OnProgress, when set, is called after every batch.
	OnProgress func(Progress)
	// NewID makes task IDs (random hex when nil).
	NewID func() string
}

// Structured makes one structured model call (llm.Structured) on the
// agent's provider and model id under the one retry rule of a model call,
// llm.Reconnect: these calls are made outside the agent runtime, which
// applies the rule to its own. The cursor agent's decisions and the codex
// assistant's answers go through it.
func (a *Agent) Structured(ctx context.Context, msgs []llm.Message, s llm.Structure) (json.RawMessage, llm.Response, error) {
	return llm.Structured(ctx, llm.Reconnecting(a.Provider), &llm.Request{Model: a.Model, Messages: msgs}, s)
}

// Run starts a task and walks until its mode is satisfied, the cursor ends
// or the step limit is reached. Model faults never abort the task; only
// infrastructure failures (the provider, the session, the store) return an
// error, after the state is saved so the task can be resumed.
func (a *Agent) Run(ctx context.Context, t Task) (Result, error) {
	if err := a.check(&t); err != nil {
		return Result{}, err
	}
	st := &TaskState{Task: t}
	return a.walk(ctx, st)
}

// Resume continues a stored task from its nextAfterPointer with its
// evidence intact, for up to its step limit again.
func (a *Agent) Resume(ctx context.Context, taskID string) (Result, error) {
	st, err := a.store().LoadTask(ctx, taskID)
	if err != nil {
		return Result{}, err
	}
	if st.StoppedBy != "" && st.StoppedBy != "step_limit" {
		return a.result(st), nil
	}
	st.StoppedBy = ""
	st.Steps = 0
	return a.walk(ctx, st)
}

func (a *Agent) store() Store {
	if a.Store == nil {
		a.Store = NewMemStore()
	}
	return a.Store
}

func (a *Agent) check(t *Task) error {
	if t.ID == "" {
		t.ID = a.newID()
	}
	if strings.TrimSpace(t.Goal) == "" {
		return fmt.Errorf("%w: the goal is empty: say what to look for", ErrTask)
	}
	switch t.Mode {
	case "":
		t.Mode = FirstMatch
	case FirstMatch, Last, Collect, Aggregate:
	case Nth:
		if t.N < 1 {
			return fmt.Errorf("%w: mode Nth needs n ≥ 1 (got %d)", ErrTask, t.N)
		}
	default:
		return fmt.Errorf("%w: unknown mode %q (FirstMatch, Nth, Last, CollectToTargetSet, AggregateSummary)", ErrTask, t.Mode)
	}
	if t.Cursor.Type == "" {
		t.Cursor = cursor.NewSpec(cursor.FullScan)
	}
	l := &t.Limits
	l.MaxSteps = orDefault(l.MaxSteps, DefaultSteps)
	if l.MaxSteps < 1 || l.MaxSteps > MaxSteps {
		return fmt.Errorf("%w: maxSteps must be between 1 and %d (got %d)", ErrTask, MaxSteps, l.MaxSteps)
	}
	l.EvidenceKept = orDefault(l.EvidenceKept, DefaultEvidence)
	l.SnapshotPointers = orDefault(l.SnapshotPointers, DefaultSnapshot)
	l.SummaryChars = orDefault(l.SummaryChars, DefaultSummary)
	l.ExcerptChars = orDefault(l.ExcerptChars, DefaultExcerpt)
	l.Retries = orDefault(l.Retries, DefaultRetries)
	return nil
}

func orDefault(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

func (a *Agent) newID() string {
	if a.NewID != nil {
		return a.NewID()
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// walk reads batches until the task is done.
func (a *Agent) walk(ctx context.Context, st *TaskState) (Result, error) {
	t := &st.Task
	name, err := a.openCursor(st)
	if err != nil {
		return Result{}, err
	}
	defer func() { _ = a.Session.DeleteCursor(t.Book, name) }()
	for st.StoppedBy == "" {
		if st.Steps >= t.Limits.MaxSteps {
			st.StoppedBy = "step_limit"
			break
		}
		if err := ctx.Err(); err != nil {
			return a.fail(ctx, st, llm.ContextError(ctx))
		}
		p, err := a.Session.Next(t.Book, name)
		if err != nil {
			return a.fail(ctx, st, err)
		}
		if err := a.step(ctx, st, p); err != nil {
			return a.fail(ctx, st, err)
		}
		if err := a.store().SaveTask(ctx, st); err != nil {
			return Result{}, err
		}
	}
	res := a.result(st)
	if err := a.finish(ctx, st, &res); err != nil {
		return a.fail(ctx, st, err)
	}
	return res, a.store().SaveTask(ctx, st)
}

// fail saves the state (so the task can resume) and returns the error.
func (a *Agent) fail(ctx context.Context, st *TaskState, err error) (Result, error) {
	_ = a.store().SaveTask(context.WithoutCancel(ctx), st)
	return a.result(st), err
}

// openCursor creates the task's private cursor at its position.
func (a *Agent) openCursor(st *TaskState) (string, error) {
	spec := st.Task.Cursor
	spec.Name = "task_" + st.Task.ID
	if st.Task.Mode == Last {
		spec.Backward = true
	}
	if st.NextAfter != "" {
		spec.StartAfter = st.NextAfter
	}
	tuneBatch(&spec, st.Task)
	info, err := a.Session.CreateCursor(st.Task.Book, spec)
	if err != nil {
		return "", fmt.Errorf("%w: cursor: %w", ErrTask, err)
	}
	return info.Name, nil
}

// tuneBatch sizes the batches for the task when the caller left the limits
// to the agent. A keyword or search cursor is pre-filtered, so most of its
// items match: a task that stops at its first (or n-th) match then reads
// small batches and does not pay for items after the answer. An unfiltered
// cursor's matches are sparse, and every task reads large batches so the
// fixed prompt is paid fewer times.
func tuneBatch(spec *cursor.Spec, t Task) {
	if spec.MaxElements != 0 || spec.MaxBytes != 0 {
		return
	}
	prefiltered := len(spec.Keywords) > 0 || spec.Type == cursor.Search
	switch {
	case t.Select != "" || t.Mode == Collect || t.Mode == Aggregate || !prefiltered:
		spec.MaxElements, spec.MaxBytes = 40, 24000
	case t.Mode == Nth:
		spec.MaxElements, spec.MaxBytes = min(t.N+2, 20), 12000
	default:
		spec.MaxElements, spec.MaxBytes = 4, 6000
	}
}
