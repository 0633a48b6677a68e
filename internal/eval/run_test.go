package eval

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
)

// goldRunner is a Runner at the seam: it answers every job with its gold,
// editing the copy through the editor as the agents do (journaled, so undo
// works). It fails with errLost at call failAt.
type goldRunner struct {
	plan   *Plan
	calls  int
	failAt int
	jobs   []string
}

var errLost = errors.New("connection lost")

func (r *goldRunner) Run(_ context.Context, job Job) (Outcome, error) {
	r.calls++
	if r.calls == r.failAt {
		return Outcome{}, errLost
	}
	out := Outcome{Done: true, Calls: 2, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 50}}
	for _, t := range r.plan.Tasks {
		switch {
		case t.Walk != nil && job.Walk != nil && t.Walk.Goal == job.Walk.Goal:
			r.jobs = append(r.jobs, t.ID)
			out.Pointers = t.Gold.Pointers
			return out, nil
		case t.Prompt != "" && t.Prompt == job.Prompt && t.Gold.Edit != nil:
			r.jobs = append(r.jobs, t.ID)
			return r.edit(job.Book, *t.Gold.Edit, out)
		case t.Prompt != "" && t.Prompt == job.Prompt:
			r.jobs = append(r.jobs, t.ID)
			out.Answer = "ANSWER: " + goldText(t)
			return out, nil
		}
		for _, s := range t.Steps {
			if s.Prompt != job.Prompt {
				continue
			}
			r.jobs = append(r.jobs, t.ID+"/"+s.Params.Op)
			if s.Inverse {
				_, err := editor.UndoCommand(job.Book, false, false)
				out.Answer, out.Written = "ANSWER: done", true
				return out, err
			}
			return r.edit(job.Book, s.Edit, out)
		}
	}
	return Outcome{}, errors.New("goldRunner: no such job")
}

func (r *goldRunner) edit(path string, op EditOp, out Outcome) (Outcome, error) {
	s := editor.New()
	if _, err := s.Open(path); err != nil {
		return out, err
	}
	if _, err := s.Edit(path, document.Op(op.Op), op.Pointer, op.Markdown); err != nil {
		return out, err
	}
	if _, err := s.Save(path, editor.SaveOptions{Record: "eval"}); err != nil {
		return out, err
	}
	out.Answer, out.Written, out.Edits = "ANSWER: done", true, 1
	return out, nil
}

// evaluation sets up a run of the sample book with its store.
func evaluation(t *testing.T, r Runner, opt Options, root string) (*Evaluation, *Plan) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	path := filepath.Join(root, "book.md")
	if _, err := os.Stat(path); err != nil {
		require.NoError(t, os.WriteFile(path, src, 0o644))
	}
	b, err := NewBook("book.md", src, nil, 0)
	require.NoError(t, err)
	p := plan(t, b, opt)
	m := ModelInfo{Key: "fake", ModelID: "gold", Pricing: &llm.Pricing{InputPer1K: 0.5, OutputPer1K: 1.5}}
	store, err := OpenStore(filepath.Join(root, "results"), m, p, false)
	require.NoError(t, err)
	tick := time.Unix(0, 0)
	clock := func() time.Time { tick = tick.Add(250 * time.Millisecond); return tick }
	return &Evaluation{Runner: r, Book: b, Plan: p, Model: m, Source: path, Store: store, TempDir: t.TempDir(), Clock: clock}, p
}

func TestEvaluationOfTheGoldIsExact(t *testing.T) {
	root := t.TempDir()
	r := &goldRunner{}
	e, p := evaluation(t, r, Options{Seed: 2, PerFamily: 2, RelayPairs: 3}, root)
	r.plan = p
	var seen []Progress
	e.OnProgress = func(pr Progress) { seen = append(seen, pr) }
	rep, err := e.Run(context.Background())
	require.NoError(t, err)
	for _, task := range rep.Tasks {
		require.Equal(t, Exact, task.Result, "%s: %s", task.ID, task.Reason)
	}
	require.Equal(t, len(p.Tasks), rep.Total.Exact)
	require.Len(t, seen, p.Commands())
	require.Equal(t, p.Commands(), seen[len(seen)-1].Done)
	require.Equal(t, 2*p.Commands(), seen[len(seen)-1].Calls)
	first := rep.Tasks[0]
	require.Equal(t, 0.25, first.Seconds, "timed by the injected clock")
	require.InDelta(t, 0.5*1+1.5*0.05, *first.Cost, 1e-9)
	require.InDelta(t, *first.Cost/(*rep.BookCost), first.Rho, 1e-9)
	require.Equal(t, "cost", rep.RhoBasis)
	relay := rep.Tasks[len(rep.Tasks)-1]
	require.Equal(t, 0, *relay.BytesDiffer)
	require.Len(t, relay.Steps, 6)
	before, err := os.ReadFile(filepath.Join(root, "book.md"))
	require.NoError(t, err)
	require.Equal(t, e.Book.Source(), before, "the user's book is never written")
	_, err = os.Stat(editor.StateDir(filepath.Join(root, "book.md")))
	require.True(t, os.IsNotExist(err), "nor its state directory")
}

func TestEvaluationResumesWhereItStopped(t *testing.T) {
	root := t.TempDir()
	opt := Options{Seed: 2, PerFamily: 1, RelayPairs: 3}
	first := &goldRunner{}
	e, p := evaluation(t, first, opt, root)
	first.plan = p
	relayStart := len(p.Tasks) - 1
	first.failAt = relayStart + 4 // the relay's fourth step
	_, err := e.Run(context.Background())
	require.ErrorIs(t, err, errLost)
	tasks, steps := e.Store.Count()
	require.Equal(t, relayStart, tasks)
	require.Equal(t, 3, steps)

	second := &goldRunner{}
	e2, _ := evaluation(t, second, opt, root)
	second.plan = p
	rep, err := e2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"relay#1/sentence", "relay#1/insert", "relay#1/insert"}, second.jobs,
		"only the relay's last three steps run again")
	require.Equal(t, len(p.Tasks), rep.Total.Exact)
	want, err := json.Marshal(rep)
	require.NoError(t, err)

	third := &goldRunner{plan: p}
	e3, _ := evaluation(t, third, opt, root)
	again, err := e3.Run(context.Background())
	require.NoError(t, err)
	require.Zero(t, third.calls, "a finished evaluation is reported again without the model")
	got, err := json.Marshal(again)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got))
}

func TestRelayStartsOverWhenItsCopyChanged(t *testing.T) {
	root := t.TempDir()
	opt := Options{Seed: 2, PerFamily: 1, RelayPairs: 2, Families: []Family{Relay}}
	first := &goldRunner{failAt: 3}
	e, p := evaluation(t, first, opt, root)
	first.plan = p
	_, err := e.Run(context.Background())
	require.ErrorIs(t, err, errLost)
	copyPath := filepath.Join(e.Store.RelayDir("relay#1"), "book.md")
	require.NoError(t, os.WriteFile(copyPath, []byte("# Someone else's file\n"), 0o644))

	second := &goldRunner{plan: p}
	e2, _ := evaluation(t, second, opt, root)
	rep, err := e2.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, second.jobs, 4, "all four steps again, on a fresh copy")
	require.Equal(t, Exact, rep.Tasks[0].Result, rep.Tasks[0].Reason)
}

func TestSomeFamiliesReuseWhatAllOfThemKept(t *testing.T) {
	root := t.TempDir()
	all := &goldRunner{}
	e, p := evaluation(t, all, Options{Seed: 4, PerFamily: 2, RelayPairs: 1}, root)
	all.plan = p
	_, err := e.Run(context.Background())
	require.NoError(t, err)

	some := &goldRunner{}
	e2, p2 := evaluation(t, some, Options{Seed: 4, PerFamily: 2, RelayPairs: 1, Families: []Family{Nth, Insert}}, root)
	some.plan = p2
	require.Equal(t, e.Store.Dir, e2.Store.Dir)
	rep, err := e2.Run(context.Background())
	require.NoError(t, err)
	require.Zero(t, some.calls)
	require.Len(t, rep.Families, 2)
	require.Equal(t, 4, rep.Total.Exact)

	other := &goldRunner{}
	e3, p3 := evaluation(t, other, Options{Seed: 5, PerFamily: 2, RelayPairs: 1, Families: []Family{Nth}}, root)
	other.plan = p3
	require.NotEqual(t, e.Store.Dir, e3.Store.Dir, "another seed, other tasks")
}
