package cursoragent

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/textnorm"
	"github.com/stretchr/testify/require"
)

// setup opens the Russian sample book in a session and returns the IDs of
// the items that mention the word (by stem), in document order.
func setup(t *testing.T, word string, headings bool) (*editor.Session, *document.Document, []int) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	s := editor.New()
	s.Load("book", src)
	d := markdown.Parse(src)
	m := textnorm.NewMatcher(word)
	var ids []int
	for _, it := range d.Items() {
		if m.Match(it.Text) && (headings || it.Kind != document.Heading) {
			ids = append(ids, it.ID)
		}
	}
	require.NotEmpty(t, ids)
	return s, d, ids
}

func truthOf(ids []int) map[int]bool {
	m := map[int]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func newAgent(s *editor.Session, o *oracle) (*Agent, *fake) {
	f := &fake{answer: o.answer}
	return &Agent{Provider: f, Model: "test", Session: s, NewID: func() string { return "t1" }}, f
}

func fullScan(maxElements int) cursor.Spec {
	s := cursor.NewSpec(cursor.FullScan)
	s.MaxElements = maxElements
	return s
}

func TestModes(t *testing.T) {
	s, d, ids := setup(t, "Звёздочкин", false)
	ptr := func(id int) string { return d.ByID(id).Pointer().String() }
	tests := []struct {
		name string
		task Task
		want string
	}{
		{"first match", Task{Mode: FirstMatch}, ptr(ids[0])},
		{"4th match", Task{Mode: Nth, N: 4}, ptr(ids[3])},
		{"last match", Task{Mode: Last}, ptr(ids[len(ids)-1])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
			a, f := newAgent(s, o)
			tt.task.Book, tt.task.Goal, tt.task.Cursor = "book", "a paragraph that mentions professor Zvezdochkin", fullScan(10)
			res, err := a.Run(context.Background(), tt.task)
			require.NoError(t, err)
			require.True(t, res.Success, res.Summary)
			require.Equal(t, tt.want, res.Pointer)
			require.Equal(t, "found", res.StoppedBy)
			it := d.ByID(ids[0])
			if tt.task.Mode == FirstMatch {
				require.Equal(t, d.Markdown(it), res.Excerpt, "the excerpt is the item's Markdown")
			}
			require.Equal(t, len(f.requests), res.Usage.Calls)
			require.Greater(t, res.Usage.InputTokens, 0)
			if tt.task.Mode == Last {
				require.Equal(t, "backward", jsonMessage(f.requests[0], "task")["direction"])
			}
		})
	}
}

func TestHeadingCountsBeforeItsParagraph(t *testing.T) {
	s, d, ids := setup(t, "Звёздочкин", true)
	require.Equal(t, document.Heading, d.ByID(ids[0]).Kind, "the name is first met in a heading")
	o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
	a, _ := newAgent(s, o)
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "first mention of Zvezdochkin", Mode: Nth, N: 2, Cursor: fullScan(200)})
	require.NoError(t, err)
	require.Equal(t, d.ByID(ids[1]).Pointer().String(), res.Pointer, "ordinals follow document order, headings included")
	require.Equal(t, 1, res.Usage.Calls)
}

func TestCollectAndAggregate(t *testing.T) {
	s, _, ids := setup(t, "Варя", false)
	o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
	a, _ := newAgent(s, o)
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "every paragraph about Varya", Mode: Collect,
		TargetSet: "varya", Cursor: fullScan(15)})
	require.NoError(t, err)
	require.Equal(t, "cursor_complete", res.StoppedBy)
	require.True(t, res.CursorComplete)
	require.Equal(t, len(ids), res.EvidenceCount)
	tv, err := s.Targets("book", "varya")
	require.NoError(t, err)
	require.Len(t, tv.Items, len(ids))
	for i, it := range tv.Items {
		require.Equal(t, ids[i], it.Pointer.ID)
	}
	require.LessOrEqual(t, len(res.Evidence), DefaultEvidence)

	res, err = a.Run(context.Background(), Task{Book: "book", Goal: "what happens to Varya", Mode: Aggregate, Cursor: fullScan(40)})
	require.NoError(t, err)
	require.Contains(t, res.Summary, "found in this batch", "the summary is built from the progress notes")
}

func TestEvidenceNormalisation(t *testing.T) {
	s, d, _ := setup(t, "Варя", false)
	first := d.At(0)
	second := d.At(1)
	f := &fake{answer: func(req *llm.Request) string {
		ptrs := batchPointers(req)
		if ptrs[0] != first.Pointer().String() {
			return `{"action":"continue","newEvidence":[]}`
		}
		// the same item twice (by label and by id), a pointer not in the batch,
		// a paraphrased excerpt.
		return `{"action":"continue","batchFound":true,"newEvidence":[
 {"pointer":"` + second.Label + `","excerpt":"paraphrase","reason":"r1"},
 {"pointer":"` + first.Pointer().String() + `","excerpt":"","reason":"r0"},
 {"pointer":"` + second.Pointer().String() + `","excerpt":"again","reason":"dup"},
 {"pointer":"999:1.9.p9","excerpt":"x","reason":"invented"}],"progress":"p"}`
	}}
	a := &Agent{Provider: f, Model: "m", Session: s}
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "g", Mode: Collect, Cursor: fullScan(3)})
	require.NoError(t, err)
	require.Equal(t, 2, res.EvidenceCount)
	require.Equal(t, 2, res.Dropped)
	require.Equal(t, first.ID, res.Evidence[0].Pointer.ID, "evidence in document order")
	require.Equal(t, d.Markdown(second), res.Evidence[1].Markdown, "the excerpt is replaced by the item's Markdown")
}

func TestCorrectiveTurnAndSkip(t *testing.T) {
	s, _, _ := setup(t, "Варя", false)
	calls := 0
	f := &fake{answer: func(req *llm.Request) string {
		calls++
		switch {
		case calls == 1:
			return "I think nothing matches."
		case calls == 2:
			last := req.Messages[len(req.Messages)-1]
			require.True(t, strings.HasPrefix(last.Content, "Return only one JSON action. "), last.Content)
			require.Equal(t, llm.RoleAssistant, req.Messages[len(req.Messages)-2].Role)
			return `{"action":"continue","newEvidence":[]}`
		case calls <= 5:
			return `{"action": "maybe"}` // batch 2: three broken replies → skipped
		}
		return `{"action":"continue","newEvidence":[]}`
	}}
	a := &Agent{Provider: f, Model: "m", Session: s}
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "g", Mode: Collect, Cursor: fullScan(40)})
	require.NoError(t, err)
	require.Len(t, res.Skipped, 1)
	require.Contains(t, res.Skipped[0], "action must be")
	require.True(t, res.CursorComplete, "one bad batch never aborts the task")
	require.Equal(t, 3, res.Usage.Corrective)
}

func TestNeedMoreContext(t *testing.T) {
	s, d, _ := setup(t, "Варя", false)
	target := d.At(5)
	asked := false
	f := &fake{answer: func(req *llm.Request) string {
		if jsonMessage(req, "context") != nil {
			return `{"action":"continue","newEvidence":[{"pointer":"` + target.Pointer().String() + `","excerpt":"e","reason":"with context"}]}`
		}
		if !asked {
			asked = true
			return `{"action":"continue","needMoreContext":true,"contextPointers":["` + d.At(0).Pointer().String() + `"],"newEvidence":[]}`
		}
		return `{"action":"continue","newEvidence":[]}`
	}}
	a := &Agent{Provider: f, Model: "m", Session: s}
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "g", Mode: FirstMatch,
		Cursor: func() cursor.Spec { c := fullScan(10); c.StartAfter = d.At(0).Pointer().String(); return c }()})
	require.NoError(t, err)
	require.Equal(t, target.Pointer().String(), res.Pointer)
	ctxMsg := jsonMessage(f.requests[1], "context")
	require.NotNil(t, ctxMsg, "the second request carries the neighbours")
}

func TestFinaliser(t *testing.T) {
	s, d, ids := setup(t, "Звёздочкин", false)
	pick := d.ByID(ids[2]).Pointer().String()
	for _, tc := range []struct{ answer, want string }{{pick, pick}, {"1:1", ""}} {
		o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
		f := &fake{answer: func(req *llm.Request) string {
			if jsonMessage(req, "select") != nil {
				return `{"pointer":"` + tc.answer + `","why":"the most formal"}`
			}
			return o.answer(req)
		}}
		a := &Agent{Provider: f, Model: "m", Session: s}
		res, err := a.Run(context.Background(), Task{Book: "book", Goal: "lines of the professor", Mode: FirstMatch,
			Select: "the most formal line", Cursor: fullScan(50)})
		require.NoError(t, err)
		require.Equal(t, tc.want, res.Pointer)
		require.Equal(t, tc.want != "", res.Success)
		if tc.want == "" {
			require.Contains(t, res.Summary, "not one of the")
		} else {
			require.Equal(t, "the most formal", res.WhyThis)
		}
		require.Equal(t, len(ids), res.EvidenceCount, "the finaliser sees every match")
	}
}

func TestResumeAfterStepLimit(t *testing.T) {
	s, d, ids := setup(t, "Звёздочкин", false)
	o := &oracle{truth: truthOf(ids), rng: rand.New(rand.NewSource(1))}
	a, _ := newAgent(s, o)
	store := NewMemStore()
	a.Store = store
	task := Task{Book: "book", Goal: "g", Mode: Nth, N: len(ids), Cursor: fullScan(10), Limits: Limits{MaxSteps: 2}}
	res, err := a.Run(context.Background(), task)
	require.NoError(t, err)
	require.False(t, res.Success)
	require.Equal(t, "step_limit", res.StoppedBy)
	require.Contains(t, res.Summary, "resume")
	st, err := store.LoadTask(context.Background(), "t1")
	require.NoError(t, err)
	require.Equal(t, res.NextAfterPointer, st.NextAfter)
	before := len(st.Found)
	for i := 0; i < 20 && res.StoppedBy == "step_limit"; i++ {
		res, err = a.Resume(context.Background(), "t1")
		require.NoError(t, err)
	}
	require.True(t, res.Success)
	require.Equal(t, d.ByID(ids[len(ids)-1]).Pointer().String(), res.Pointer)
	require.GreaterOrEqual(t, res.EvidenceCount, before)
	_, err = a.Resume(context.Background(), "nope")
	require.ErrorIs(t, err, ErrNoTask)
}

func TestTaskErrors(t *testing.T) {
	s, _, _ := setup(t, "Варя", false)
	a := &Agent{Provider: &fake{answer: func(*llm.Request) string { return "" }}, Model: "m", Session: s}
	for _, task := range []Task{
		{Book: "book", Goal: " "},
		{Book: "book", Goal: "g", Mode: Nth},
		{Book: "book", Goal: "g", Mode: "Sometimes"},
		{Book: "book", Goal: "g", Limits: Limits{MaxSteps: 513}},
		{Book: "book", Goal: "g", Cursor: cursor.Spec{Type: cursor.Keyword}},
	} {
		_, err := a.Run(context.Background(), task)
		require.ErrorIs(t, err, ErrTask, "%+v", task)
	}
}

// A provider that fails once before its first event is reconnected once
// (llm.Reconnect, the rule the agent runtime applies to its own calls) and
// the task goes on.
func TestOneProviderFailureIsReconnected(t *testing.T) {
	s, _, _ := setup(t, "Варя", false)
	calls := 0
	p := &failing{fail: func() bool { calls++; return calls == 2 }}
	a := &Agent{Provider: p, Model: "m", Session: s}
	res, err := a.Run(context.Background(), Task{Book: "book", Goal: "g", Mode: Collect, Cursor: fullScan(10)})
	require.NoError(t, err)
	require.Positive(t, res.Usage.Calls)
	require.Equal(t, res.Usage.Calls+1, calls, "one extra request: the reconnect of the failed call")
}

func TestProviderFailureIsAnErrorAndResumable(t *testing.T) {
	s, _, _ := setup(t, "Варя", false)
	calls := 0
	p := &failing{fail: func() bool { calls++; return calls >= 2 }} // down from the second call on
	store := NewMemStore()
	a := &Agent{Provider: p, Model: "m", Session: s, Store: store, NewID: func() string { return "x" }}
	_, err := a.Run(context.Background(), Task{Book: "book", Goal: "g", Mode: Collect, Cursor: fullScan(10)})
	require.Error(t, err)
	require.True(t, llm.IsKind(err, llm.Server))
	require.Equal(t, 3, calls, "the failed call and its one reconnect (llm.Reconnect)")
	st, err := store.LoadTask(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, 1, st.Steps, "the state up to the failure is saved")
}
