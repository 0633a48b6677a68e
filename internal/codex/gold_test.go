package codex_test

import (
	"fmt"
	"testing"

	"github.com/aitexteditor/aite/internal/codex"
	"github.com/aitexteditor/aite/internal/codex/codexgold"
)

// TestGold measures the codex built without a model against the gold of
// the shared books and prints the tables (see codexgold for what is
// measured):
//
//   - "without a model": the names the text alone groups. The targets
//     (mention recall and precision ≥ 0.97) need the names only a reader
//     links (Miss Bennet is Jane, Mrs. Collins is Charlotte); the floors here are
//     set just under the measured figures, so a regression fails.
//   - "the gold's names as aliases": the matching alone, as a model that
//     groups the names right would leave it; it must reach the targets.
//
// Every main character must be found in both.
func TestGold(t *testing.T) {
	type floor struct{ aliasR, aliasP, mentionR, mentionP float64 }
	floors := map[string]floor{
		codexgold.Russian: {0.99, 0.99, 0.99, 0.99},
		codexgold.English: {0.76, 0.99, 0.94, 0.99},
	}
	const target = 0.97
	for _, name := range []string{codexgold.Russian, codexgold.English} {
		b := codexgold.Load(t, name)
		c, _ := codex.Build(b.Doc.Items(), nil)
		det := b.Measure(c)
		fmt.Println(det.Table("without a model (text only)"))
		oracle := b.Measure(b.Oracle(c))
		fmt.Println(oracle.Table("the gold's names as aliases (matching only)"))

		f := floors[name]
		for _, rep := range []codexgold.Report{det, oracle} {
			for _, r := range rep.Rows {
				if !r.Found {
					t.Errorf("%s: main character %s (%s) not found", name, r.Main, r.Character)
				}
			}
		}
		d := det.Micro()
		check(t, name+" without a model: alias recall", d.AliasRecall(), f.aliasR)
		check(t, name+" without a model: alias precision", d.AliasPrecision(), f.aliasP)
		check(t, name+" without a model: mention recall", d.MentionRecall(), f.mentionR)
		check(t, name+" without a model: mention precision", d.MentionPrecision(), f.mentionP)
		o := oracle.Micro()
		check(t, name+" matching: mention recall", o.MentionRecall(), target)
		check(t, name+" matching: mention precision", o.MentionPrecision(), target)
	}
}

func check(t *testing.T, what string, got, floor float64) {
	t.Helper()
	if got < floor {
		t.Errorf("%s = %.3f, below %.2f", what, got, floor)
	}
}
