package eval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aitexteditor/aite/internal/editor"
)

// relay runs a relay's commands one after another on one copy of the book,
// kept in the store so that an interrupted relay goes on from its last
// recorded step, and scores every step and the book at the end.
func (e *Evaluation) relay(ctx context.Context, t Task, prog *progress) (TaskResult, error) {
	dir := e.Store.RelayDir(t.ID)
	path := filepath.Join(dir, filepath.Base(e.Source))
	done := e.Store.Steps(t.ID)
	if !resumable(path, done) {
		if len(done) > 0 {
			if err := e.Store.ResetRelay(t.ID); err != nil {
				return TaskResult{}, err
			}
			done = nil
		}
		if err := os.RemoveAll(dir); err != nil {
			return TaskResult{}, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return TaskResult{}, err
		}
		if _, err := e.copyBook(dir); err != nil {
			return TaskResult{}, err
		}
	}
	for _, s := range done {
		prog.finished(t.ID, s.Index, s.Result, s.Calls, s.usage(), true)
	}
	steps := append([]StepResult(nil), done...)
	for k := len(steps); k < len(t.Steps); k++ {
		if err := ctx.Err(); err != nil {
			return TaskResult{}, err
		}
		s, err := e.relayStep(ctx, t, k, path, steps)
		if err != nil {
			return TaskResult{}, err
		}
		if err := e.Store.SaveStep(s); err != nil {
			return TaskResult{}, err
		}
		steps = append(steps, s)
		prog.finished(t.ID, s.Index, s.Result, s.Calls, s.usage(), false)
	}
	final, err := os.ReadFile(path)
	if err != nil {
		return TaskResult{}, err
	}
	return e.relayResult(t, steps, final, path), nil
}

// resumable reports whether the relay copy is the book its last recorded
// step left.
func resumable(path string, done []StepResult) bool {
	if len(done) == 0 {
		return false
	}
	b, err := os.ReadFile(path)
	return err == nil && digest(b) == done[len(done)-1].After
}

// relayStep runs and scores step k. A forward step whose target an earlier
// step changed (and its inverse) is not run: it is wrong, and the damage
// is the earlier step's.
func (e *Evaluation) relayStep(ctx context.Context, t Task, k int, path string, prev []StepResult) (StepResult, error) {
	step := t.Steps[k]
	s := StepResult{Task: t.ID, Index: k + 1, Op: step.Params.Op, Inverse: step.Inverse}
	before, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	pairFile := filepath.Join(filepath.Dir(path), "pair-before.md")
	if !step.Inverse {
		if err := os.WriteFile(pairFile, before, 0o644); err != nil {
			return s, err
		}
	}
	var expected []byte
	if step.Inverse {
		if prev[k-1].Skipped {
			s.Result, s.Reason, s.Skipped, s.After = Wrong, prev[k-1].Reason, true, digest(before)
			return s, nil
		}
		expected, err = os.ReadFile(pairFile)
	} else {
		expected, err = e.forwardExpected(step, path, before)
	}
	if err != nil {
		s.Result, s.Reason, s.Skipped, s.After = Wrong, err.Error(), true, digest(before)
		return s, nil
	}
	o, secs, _, err := e.run(ctx, Job{Book: path, Prompt: step.Prompt, Write: true}, t.ID)
	if err != nil {
		return s, err
	}
	s.setOutcome(o, secs)
	after, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	sc := scoreEdit(o, bookState{before: before, expected: expected, after: after})
	s.Result, s.Reason, s.Answer, s.After = sc.verdict, sc.reason, sc.answer, digest(after)
	return s, nil
}

// forwardExpected is the book before a forward step with its edit applied,
// provided the target still is what the relay was generated from.
func (e *Evaluation) forwardExpected(step Step, path string, before []byte) ([]byte, error) {
	sess := editor.New()
	if _, err := sess.Open(path); err != nil {
		return nil, err
	}
	ids, next, err := sess.ItemIDs(path)
	if err != nil {
		return nil, err
	}
	it, err := e.Book.resolve(step.Params.Target)
	if err != nil {
		return nil, err
	}
	now, ok := sess.ItemByID(path, it.ID)
	if !ok || now.Markdown != e.Book.markdownOf(it) {
		return nil, fmt.Errorf("not run: an earlier step changed or removed its target %s", step.Params.Target)
	}
	return applyEdit(before, ids, next, step.Edit)
}

// relayResult sums a relay's steps and measures its final book.
func (e *Evaluation) relayResult(t Task, steps []StepResult, final []byte, path string) TaskResult {
	r := TaskResult{ID: t.ID, Family: Relay, Gold: goldText(t), Commands: len(t.Steps), Steps: steps, FinalBook: path,
		Prompt: taskPrompt(t)}
	r.Log, _ = filepath.Abs(filepath.Join(e.Store.Dir, "logs", fileName(t.ID)+".log"))
	n := map[Verdict]int{}
	for _, s := range steps {
		n[s.Result]++
		r.Calls += s.Calls
		r.EstimatedCalls += s.EstimatedCalls
		r.InputTokens += s.InputTokens
		r.CachedTokens += s.CachedTokens
		r.OutputTokens += s.OutputTokens
		r.Seconds += s.Seconds
	}
	diff := differingBytes(e.Book.src, final)
	kept := 1 - float64(diff)/float64(max(len(e.Book.src), 1))
	r.BytesDiffer, r.Preserved = &diff, &kept
	switch {
	case n[Exact] == len(steps) && bytes.Equal(final, e.Book.src):
		r.Result = Exact
	case n[Wrong] > 0 || !bytes.Equal(final, e.Book.src) && n[Failed] == 0:
		r.Result = Wrong
	default:
		r.Result = Failed
	}
	r.Answer = fmt.Sprintf("%d bytes differ", diff)
	r.Reason = fmt.Sprintf("%d of %d steps exact, %d wrong, %d failed; %d bytes differ from the original (%.2f %% preserved)",
		n[Exact], len(steps), n[Wrong], n[Failed], diff, 100*kept)
	return r
}
