package cursoragent

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// result builds the task's result from its state.
func (a *Agent) result(st *TaskState) Result {
	t := st.Task
	r := Result{TaskID: t.ID, EvidenceCount: len(st.Found), NextAfterPointer: st.NextAfter,
		CursorComplete: st.Complete, StepsUsed: st.Steps, StoppedBy: st.StoppedBy, Usage: st.Usage,
		Dropped: st.Dropped, Skipped: st.Skipped, Warnings: st.Warnings, Unjudged: st.Unjudged,
		Incomplete: len(st.Unjudged) > 0 || st.StoppedBy == "step_limit"}
	r.Evidence = a.current(t.Book, st.Found[:min(len(st.Found), t.Limits.EvidenceKept)])
	// Only a match that no unjudged item precedes can be the first or n-th.
	judged := st.judgedBefore()
	var pick *Evidence
	switch t.Mode {
	case FirstMatch, Last:
		if judged > 0 {
			pick = &st.Found[0]
		}
	case Nth:
		if judged >= t.N {
			pick = &st.Found[t.N-1]
		}
	}
	if pick != nil && t.Select == "" {
		a.choose(t.Book, &r, *pick, pick.Reason)
	}
	r.Summary = a.summary(st, r)
	return r
}

// choose sets the picked item with its current pointer.
func (a *Agent) choose(book string, r *Result, e Evidence, why string) {
	cur := a.current(book, []Evidence{e})[0]
	r.Success, r.Pointer, r.WhyThis = true, cur.Pointer.String(), why
	r.Excerpt = clip(cur.Markdown, DefaultExcerpt)
}

// current refreshes pointers and Markdown of evidence (edits may have
// moved labels since it was found).
func (a *Agent) current(book string, es []Evidence) []Evidence {
	out := make([]Evidence, len(es))
	for i, e := range es {
		out[i] = e
		if v, ok := a.Session.ItemByID(book, e.Pointer.ID); ok {
			out[i].Pointer, out[i].Index, out[i].Markdown = v.Pointer, v.Index, v.Markdown
		}
	}
	return out
}

func (a *Agent) summary(st *TaskState, r Result) string {
	t := st.Task
	switch {
	case len(st.Unjudged) > 0:
		return unjudgedSummary(st)
	case t.Mode == Aggregate:
		return clip(st.note(), t.Limits.SummaryChars)
	case r.Success:
		return fmt.Sprintf("%s: %s (%d matching items seen).", t.Mode, r.Pointer, len(st.Found))
	case st.StoppedBy == "step_limit":
		return fmt.Sprintf("Incomplete: the step limit (%d batches) was reached after %d matching items; resume task %s to read on after %s.",
			t.Limits.MaxSteps, len(st.Found), t.ID, st.NextAfter)
	case t.Mode == Collect:
		return fmt.Sprintf("%d matching items.", len(st.Found))
	default:
		return fmt.Sprintf("Not found: %d matching items in the whole cursor (needed %d).", len(st.Found), need(t))
	}
}

// unjudgedSummary says what a task whose walk left items unjudged can and
// cannot tell.
func unjudgedSummary(st *TaskState) string {
	t, n := st.Task, 0
	var ranges []string
	for _, r := range st.Unjudged {
		n += r.Items
		if len(ranges) < 3 {
			ranges = append(ranges, r.First+" … "+r.Last)
		}
	}
	head := fmt.Sprintf("Incomplete: %d items could not be judged even when read again in smaller batches (%s", n, strings.Join(ranges, ", "))
	if len(st.Unjudged) > len(ranges) {
		head += ", …"
	}
	head += "); "
	switch {
	case t.Mode == Collect || t.Mode == Aggregate || t.Select != "":
		return head + fmt.Sprintf("%d matching items among those judged, so the list may miss some.", len(st.Found))
	case len(st.Found) >= need(t):
		return head + fmt.Sprintf("a match was seen at %s, but an unjudged item before it may be the answer.", st.Found[need(t)-1].Pointer)
	}
	return head + fmt.Sprintf("%d matching items among those judged (needed %d); the answer may be among the unjudged items.", len(st.Found), need(t))
}

func need(t Task) int {
	if t.Mode == Nth {
		return t.N
	}
	return 1
}

// finish completes Collect (the target set) and Select (the finaliser).
func (a *Agent) finish(ctx context.Context, st *TaskState, r *Result) error {
	t := st.Task
	if t.Mode == Collect && len(st.Found) > 0 {
		ptrs := make([]string, len(st.Found))
		ordered := append([]Evidence(nil), st.Found...)
		sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Index < ordered[j].Index })
		for i, e := range ordered {
			ptrs[i] = strconv.Itoa(e.Pointer.ID) + ":" // the ID alone, never a label
		}
		rep, err := a.Session.CreateTargets(t.Book, t.TargetSet, ptrs)
		if err != nil {
			return err
		}
		r.TargetSet, r.Success = rep.Name, !r.Incomplete
		if !r.Incomplete {
			r.Summary = fmt.Sprintf("%d matching items collected into the target set '%s'.", rep.Count, rep.Name)
		} else {
			r.Summary += fmt.Sprintf(" They are in the target set '%s'.", rep.Name)
		}
	}
	if t.Select != "" && st.StoppedBy != "step_limit" {
		if err := a.finalise(ctx, st, r); err != nil {
			return err
		}
		if r.Incomplete && r.Success {
			r.Success, r.Summary = false, unjudgedSummary(st)+" The best of them was "+r.Pointer+"."
			r.Pointer, r.Excerpt, r.WhyThis = "", "", ""
		}
	}
	return nil
}
