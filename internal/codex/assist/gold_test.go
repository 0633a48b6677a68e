package assist

import (
	"context"
	"fmt"
	"testing"

	"github.com/aitexteditor/aite/internal/codex/codexgold"
)

// TestGoldWithAScriptedModel runs the whole model-assisted build on the
// shared books with a scripted fake model that answers from the gold: it
// groups an entry with the others that stand for the same main character
// and adds the character's gold names as aliases. So it measures the
// pipeline (plan, collect passes, entry calls, the checks on the answers,
// merges, matching), not a real model's judgement, which cannot be
// measured here without a live model. It prints the table and fails below
// the targets (mention recall and precision ≥ 0.97, every main character
// found).
func TestGoldWithAScriptedModel(t *testing.T) {
	if testing.Short() {
		t.Skip("reads both shared books with the cursor agent")
	}
	for _, name := range []string{codexgold.Russian, codexgold.English} {
		gold := codexgold.Load(t, name)
		f := &fakeModel{}
		f.entry = func(m entryMsg) Answer {
			a := keepAll(m)
			char := gold.CharacterOf(m.Entry.Names)
			if char == "" {
				return a
			}
			for _, o := range m.Others {
				if gold.CharacterOf(o.Names) == char {
					a.SameAs = append(a.SameAs, o.ID)
				}
			}
			for _, ch := range gold.Main {
				if ch.ID == char {
					a.Aliases = append(a.Aliases, ch.Names...)
				}
			}
			return a
		}
		b, s := newBuilder(t, []byte(gold.Doc.Source()), f)
		b.MaxEntries = 1000
		p, err := b.NewPlan()
		if err != nil {
			t.Fatal(err)
		}
		c0, _, _ := s.Codex("book")
		est := b.Estimate(p, c0.Len())
		rep, err := b.Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := s.Codex("book")
		if err != nil {
			t.Fatal(err)
		}
		r := gold.Measure(c)
		fmt.Println(r.Table(fmt.Sprintf("with a scripted fake model (%d entries read, %d merged; %d calls, estimated %d)",
			rep.Done, rep.Merged, rep.Calls, est.Calls)))
		m := r.Micro()
		for _, row := range r.Rows {
			if !row.Found {
				t.Errorf("%s: %s not found", name, row.Main)
			}
		}
		if m.MentionRecall() < 0.97 || m.MentionPrecision() < 0.97 {
			t.Errorf("%s: mention recall %.3f, precision %.3f: below 0.97", name, m.MentionRecall(), m.MentionPrecision())
		}
	}
}
