package cursoragent

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
)

// breaking wraps an oracle: a request whose batch the predicate picks gets
// a broken reply (never JSON), every other the oracle's answer.
func breaking(o *oracle, broken func(ptrs []string) bool) *fake {
	return &fake{answer: func(req *llm.Request) string {
		if broken(batchPointers(req)) {
			return "Sorry, I cannot answer in JSON today."
		}
		return o.answer(req)
	}}
}

// holds reports whether a batch holds the item with the given ID.
func holdsID(ptrs []string, id int) bool {
	return slices.ContainsFunc(ptrs, func(p string) bool {
		var got int
		_, _ = fmtSscanf(p, &got)
		return got == id
	})
}

func TestSkippedBatchIsReadAgainInSmallerBatches(t *testing.T) {
	s, d, ids := setup(t, "Звёздочкин", false)
	o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
	// The model fails on every batch of more than five items.
	f := breaking(o, func(ptrs []string) bool { return len(ptrs) > 5 })
	for _, task := range []Task{
		{Mode: FirstMatch}, {Mode: Nth, N: 3}, {Mode: Last}, {Mode: Collect},
	} {
		a := &Agent{Provider: f, Model: "m", Session: s}
		task.Book, task.Goal, task.Cursor = "book", "g", fullScan(24)
		res, err := a.Run(context.Background(), task)
		require.NoError(t, err)
		require.NotEmpty(t, res.Skipped, "%s: the big batches failed", task.Mode)
		require.Empty(t, res.Unjudged, "%s: every item was judged when read again", task.Mode)
		require.False(t, res.Incomplete)
		require.True(t, res.Success, "%s: %s", task.Mode, res.Summary)
		switch task.Mode {
		case FirstMatch:
			require.Equal(t, d.ByID(ids[0]).Pointer().String(), res.Pointer)
		case Nth:
			require.Equal(t, d.ByID(ids[2]).Pointer().String(), res.Pointer)
		case Last:
			require.Equal(t, d.ByID(ids[len(ids)-1]).Pointer().String(), res.Pointer)
		case Collect:
			require.Equal(t, len(ids), res.EvidenceCount)
		}
	}
}

func TestUnjudgedItemsMakeTheResultIncomplete(t *testing.T) {
	s, d, ids := setup(t, "Звёздочкин", false)
	tests := []struct {
		task   Task
		broken int // the ID the model can never judge
	}{
		{Task{Mode: FirstMatch}, ids[0]},
		{Task{Mode: Nth, N: 2}, ids[1]},
		{Task{Mode: Nth, N: 3}, ids[0]},
		{Task{Mode: Last}, ids[len(ids)-1]},
		{Task{Mode: Collect}, ids[2]},
	}
	for _, tt := range tests {
		o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
		f := breaking(o, func(ptrs []string) bool { return holdsID(ptrs, tt.broken) })
		a := &Agent{Provider: f, Model: "m", Session: s}
		task := tt.task
		task.Book, task.Goal, task.Cursor = "book", "g", fullScan(12)
		res, err := a.Run(context.Background(), task)
		require.NoError(t, err)
		name := string(task.Mode)
		require.False(t, res.Success, "%s: an answer an unjudged item could precede is no success", name)
		require.True(t, res.Incomplete, name)
		require.Empty(t, res.Pointer, "%s: no pointer that the unjudged item could precede", name)
		require.Len(t, res.Unjudged, 1, name)
		u := res.Unjudged[0]
		require.Equal(t, 1, u.Items, "%s: halves, then quarters, narrow it down", name)
		require.Equal(t, d.ByID(tt.broken).Pointer().String(), u.First)
		require.Contains(t, res.Summary, "Incomplete", name)
		require.Contains(t, res.Summary, u.First, name)
	}
}

func TestEveryBatchBrokenIsIncompleteNotNotFound(t *testing.T) {
	s, _, _ := setup(t, "Звёздочкин", false)
	f := &fake{answer: func(*llm.Request) string { return "no" }}
	a := &Agent{Provider: f, Model: "m", Session: s}
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "g", Cursor: fullScan(40)})
	require.NoError(t, err)
	require.False(t, res.Success)
	require.True(t, res.Incomplete)
	require.NotEmpty(t, res.Unjudged)
	require.NotContains(t, res.Summary, "Not found")
}

func TestStepLimitIsIncompleteAndResumes(t *testing.T) {
	s, _, ids := setup(t, "Звёздочкин", false)
	o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
	a, _ := newAgent(s, o)
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "g", Mode: Collect, Cursor: fullScan(10),
		Limits: Limits{MaxSteps: 2}})
	require.NoError(t, err)
	require.Equal(t, "step_limit", res.StoppedBy)
	require.False(t, res.Success, "a partial collection is not the answer")
	require.True(t, res.Incomplete)
	require.Contains(t, res.Summary, "resume task t1")
	require.Less(t, res.EvidenceCount, len(ids))
	for i := 0; i < 30 && res.StoppedBy == "step_limit"; i++ {
		res, err = a.Resume(context.Background(), "t1")
		require.NoError(t, err)
	}
	require.True(t, res.Success, res.Summary)
	require.False(t, res.Incomplete)
	require.Equal(t, len(ids), res.EvidenceCount)
}

// fmtSscanf reads the ID of an `id:label` pointer.
func fmtSscanf(p string, id *int) (int, error) { return fmt.Sscanf(p, "%d:", id) }
