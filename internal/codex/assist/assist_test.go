package assist

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/llm"
)

func sample(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	return src
}

func TestBuildWithAFakeModel(t *testing.T) {
	f := &fakeModel{}
	b, s := newBuilder(t, sample(t), f)
	erofej := idOf(t, s, "Ерофей")
	f.entry = func(m entryMsg) Answer {
		a := keepAll(m)
		switch m.Entry.Names[0] {
		case "Ерофеич":
			a.SameAs = []string{erofej, "no-such-entry"}
			a.Aliases = []string{"Ерофей Ильич", "Ерофей Петрович"} // the second is not in the book
			a.Description = "городской часовщик"
			a.Facts = append(a.Facts, factOut{Text: "invented", Evidence: []string{"9999:1.p1"}})
			a.Relations = []relation{{Type: "ученик", Target: "Фёдор Карлович Штейн"}}
		case "Нижней":
			a.Keep = false
		case "Верхние Ключи":
			a.Kind = "place"
		case "Варвара":
			a.SameAs = []string{idOf(t, s, "Варя")}
		}
		return a
	}
	p, err := b.NewPlan()
	require.NoError(t, err)
	require.Equal(t, "Варя", p.Entries[0].Name, "the most named first")
	c, _, err := s.Codex("book")
	require.NoError(t, err)
	est := b.Estimate(p, c.Len())
	require.Equal(t, len(p.Entries), est.Entries)
	require.False(t, est.Priced)
	b.Pricing = llm.Pricing{InputPer1K: 1, OutputPer1K: 2}
	require.Greater(t, b.Estimate(p, c.Len()).Cost, 0.0)

	var progress []Progress
	b.OnProgress = func(pr Progress) { progress = append(progress, pr) }
	rep, err := b.Run(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, 0, p.Remaining())
	require.Equal(t, 1, rep.Dropped)
	require.GreaterOrEqual(t, rep.Merged, 1)
	require.LessOrEqual(t, rep.Calls, est.Calls, "the estimate does not undercount the calls")
	require.Equal(t, f.calls, rep.Calls, "every call is counted")
	require.NotEmpty(t, progress)
	require.True(t, progress[len(progress)-1].Done)

	er := entryOf(t, s, "Ерофеич")
	require.Contains(t, er.Aliases, "Ерофей", "merged with the candidate the model named")
	require.Contains(t, er.Aliases, "Ерофей Ильич")
	require.NotContains(t, er.Aliases, "Ерофей Петрович", "an alias the book does not have is dropped")
	require.Equal(t, codex.FromModel, er.Origin)
	require.True(t, er.Confirmed)
	require.Equal(t, "городской часовщик", er.Description)
	require.Len(t, er.Facts, 1, "the fact without evidence from the pass is dropped")
	require.Equal(t, []codex.Relation{{Type: "ученик", Target: idOf(t, s, "Штейн")}}, er.Relations)
	require.Equal(t, codex.Place, entryOf(t, s, "Верхние Ключи").Kind)
	cx, _, _ := s.Codex("book")
	_, err = cx.Find("Нижней")
	require.ErrorIs(t, err, codex.ErrNotFound, "dropped")
	require.Contains(t, cx.Rejected, "Нижней", "and not brought back by the next text build")
	require.Contains(t, entryOf(t, s, "Варя").Names(), "Варвара", "a later pass may merge an entry read before")
	for _, e := range cx.Entries {
		for _, fact := range e.Facts {
			for _, ptr := range fact.Evidence {
				_, err := s.Resolve("book", ptr)
				require.NoError(t, err, "every fact's evidence is an item of the book")
			}
		}
	}
	var merged []string
	for _, pe := range p.Entries {
		if pe.Status == Merged {
			merged = append(merged, pe.Name)
		}
	}
	require.Contains(t, merged, "Ерофей", "an entry merged by an earlier pass is not read again")
	for _, m := range f.entries {
		require.NotEqual(t, "Ерофей", m.Entry.Names[0])
	}
}

func TestBuildResumesWhereItStopped(t *testing.T) {
	down := errors.New("connection refused")
	f := &fakeModel{entry: keepAll}
	entries := 0
	f.fail = func(n int, system string) error {
		if system != entryPrompt {
			return nil
		}
		entries++
		if entries == 2 || entries == 3 { // the second entry's call and its one reconnect
			return &llm.Error{Kind: llm.Network, Message: "dead endpoint", Err: down}
		}
		return nil
	}
	b, _ := newBuilder(t, sample(t), f)
	b.MaxEntries = 3
	p, err := b.NewPlan()
	require.NoError(t, err)
	_, err = b.Run(context.Background(), p)
	require.ErrorIs(t, err, down)
	saved, err := b.Resume()
	require.NoError(t, err)
	require.NotNil(t, saved, "the plan is saved with the entries still to read")
	require.Equal(t, Done, saved.Entries[0].Status)
	require.Equal(t, Pending, saved.Entries[1].Status)
	require.NotEmpty(t, saved.Entries[1].TaskID, "its collect pass can resume")

	batches := f.batches
	rep, err := b.Run(context.Background(), saved)
	require.NoError(t, err)
	require.Equal(t, 2, rep.Done)
	require.Equal(t, batches+1, f.batches, "the finished collect pass of the second entry is not read again; only the third's")
	again, err := b.Resume()
	require.NoError(t, err)
	require.Nil(t, again, "nothing left")
}

func TestAnAnswerThatCannotBeUsedLeavesTheEntry(t *testing.T) {
	f := &fakeModel{entry: keepAll, broken: true}
	b, s := newBuilder(t, sample(t), f)
	b.MaxEntries = 1
	before := entryOf(t, s, "Варя")
	p, err := b.NewPlan()
	require.NoError(t, err)
	rep, err := b.Run(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Failed)
	require.Equal(t, Failed, p.Entries[0].Status)
	require.Contains(t, p.Entries[0].Note, "could not be used")
	require.Equal(t, before, entryOf(t, s, "Варя"), "nothing changed")
}

func TestPlanIsSavedAndRead(t *testing.T) {
	m := &MemPlans{}
	p := &Plan{Format: PlanFormat, Version: 1, Entries: []PlanEntry{{ID: "a", Status: Pending}, {ID: "b", Status: Done}}}
	require.NoError(t, m.SavePlan(p))
	back, err := m.LoadPlan()
	require.NoError(t, err)
	require.Equal(t, p, back)
	require.Equal(t, 1, back.Remaining())
	_, err = DecodePlan([]byte(`{"format":"other"}`))
	require.ErrorIs(t, err, codex.ErrInvalid)
	require.True(t, strings.HasPrefix(taskID("x", p.Created), "codex-"))
	require.True(t, slices.Equal([]string{"x"}, []string{"x"}))
}
