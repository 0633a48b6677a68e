package eval

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textnorm"
)

func plan(t *testing.T, b *Book, opt Options) *Plan {
	t.Helper()
	p, err := Generate(b, opt)
	require.NoError(t, err)
	return p
}

func planJSON(t *testing.T, p *Plan) string {
	t.Helper()
	out, err := json.Marshal(p)
	require.NoError(t, err)
	return string(out)
}

func TestGenerateIsDeterministicPerSeed(t *testing.T) {
	for _, name := range []string{"zvezdochkin.md", "lighthouse.md"} {
		t.Run(name, func(t *testing.T) {
			opt := Options{Seed: 7, PerFamily: 3, RelayPairs: 4}
			a := planJSON(t, plan(t, sample(t, name), opt))
			b := planJSON(t, plan(t, sample(t, name), opt)) // a fresh parse, a fresh index
			require.Equal(t, a, b)
			opt.Seed = 8
			require.NotEqual(t, a, planJSON(t, plan(t, sample(t, name), opt)), "another seed draws other tasks")
		})
	}
}

func TestGenerateAFamilyDoesNotDependOnTheOthers(t *testing.T) {
	b := sample(t, "zvezdochkin.md")
	all := plan(t, b, Options{Seed: 3, PerFamily: 2, RelayPairs: 2})
	one := plan(t, b, Options{Seed: 3, PerFamily: 2, RelayPairs: 2, Families: []Family{Insert}})
	var inserts []Task
	for _, task := range all.Tasks {
		if task.Family == Insert {
			inserts = append(inserts, task)
		}
	}
	require.Equal(t, inserts, one.Tasks)
}

func TestGenerateEveryFamilyOnTheSample(t *testing.T) {
	b := sample(t, "zvezdochkin.md")
	p := plan(t, b, Options{Seed: 1, PerFamily: 3, RelayPairs: 5})
	per := map[Family]int{}
	for _, task := range p.Tasks {
		per[task.Family]++
		require.True(t, strings.HasPrefix(task.ID, string(task.Family)+"#"), task.ID)
		if task.Family == Walk {
			require.NotNil(t, task.Walk)
			require.Empty(t, task.Prompt)
		} else if task.Family != Relay {
			require.Contains(t, task.Prompt, "ANSWER:", task.ID)
		}
	}
	for _, f := range Families {
		want := 3
		if f == Relay {
			want = 1
		}
		require.Equal(t, want, per[f], f)
	}
	require.Empty(t, p.Notes)
	require.Equal(t, "ru", p.Language)
	require.Equal(t, 2, p.ChapterLevel)
	relay := p.Tasks[len(p.Tasks)-1]
	require.Len(t, relay.Steps, 10)
	for i, s := range relay.Steps {
		require.Equal(t, i%2 == 1, s.Inverse)
		require.Contains(t, s.Prompt, s.Params.Target)
	}
}

func TestGenerateRefusesBadOptions(t *testing.T) {
	b := sample(t, "lighthouse.md")
	for _, opt := range []Options{{PerFamily: -1}, {PerFamily: MaxPerFamily + 1}, {RelayPairs: -1}, {RelayPairs: MaxRelayPairs + 1}} {
		_, err := Generate(b, opt)
		require.True(t, errors.Is(err, ErrOptions), "%+v: %v", opt, err)
	}
	p := plan(t, b, Options{Families: []Family{Relay}})
	require.Empty(t, p.Tasks, "no relay pairs, no relay")
	require.Contains(t, strings.Join(p.Notes, "\n"), "no relay pairs")
}

func TestParseFamilies(t *testing.T) {
	got, err := ParseFamilies(" relay, first ,NTH")
	require.NoError(t, err)
	require.Equal(t, []Family{First, Nth, Relay}, got)
	got, err = ParseFamilies("all")
	require.NoError(t, err)
	require.Equal(t, Families, got)
	_, err = ParseFamilies("first,frobnicate")
	require.ErrorContains(t, err, `unknown family "frobnicate"`)
}

// TestGoldAgreesWithTheText checks the gold of the question families
// against the book's text read item by item with the matcher, without
// the index: the n-th, last and every item holding the names, the items
// of a chapter, the chapter of the first mention.
func TestGoldAgreesWithTheText(t *testing.T) {
	for _, name := range []string{"zvezdochkin.md", "lighthouse.md"} {
		b := sample(t, name)
		for seed := uint64(1); seed <= 4; seed++ {
			for _, task := range plan(t, b, Options{Seed: seed, PerFamily: 3, RelayPairs: 1}).Tasks {
				checkGold(t, b, task)
			}
		}
	}
}

// holding lists the non-heading items of the book (in [from, to) of the
// item indexes) whose text holds every name, read with the matcher.
func holding(b *Book, from, to int, names ...string) []string {
	var ms []*textnorm.Matcher
	for _, n := range names {
		ms = append(ms, textnorm.NewMatcher(n))
	}
	var out []string
	for _, it := range b.doc.Items()[from:to] {
		ok := it.Kind != document.Heading
		for _, m := range ms {
			ok = ok && m.Match(it.Text)
		}
		if ok {
			out = append(out, it.Pointer().String())
		}
	}
	return out
}

func checkGold(t *testing.T, b *Book, task Task) {
	p := task.Params
	all := holding(b, 0, b.doc.Len(), p.Name)
	switch task.Family {
	case First:
		require.Equal(t, all[:1], task.Gold.Pointers, task.ID)
	case Nth:
		require.Equal(t, all[p.N-1:p.N], task.Gold.Pointers, task.ID)
	case Last:
		require.Equal(t, all[len(all)-1:], task.Gold.Pointers, task.ID)
	case Count:
		h, err := b.resolve(p.Chapter)
		require.NoError(t, err)
		require.Equal(t, len(holding(b, h.Index(), b.doc.SectionEnd(h.Index()), p.Name)), *task.Gold.Count, task.ID)
	case Chapter:
		first, _ := b.resolve(all[0])
		var heading string
		for _, it := range b.doc.Items()[:first.Index()] {
			if it.Kind == document.Heading && it.Level <= p.ChapterLevel {
				heading = it.Pointer().String()
			}
		}
		require.Equal(t, []string{heading}, task.Gold.Pointers, task.ID)
	case Collect:
		require.Equal(t, holding(b, 0, b.doc.Len(), p.Name, p.Other), task.Gold.Pointers, task.ID)
	case Insert:
		require.Equal(t, all[p.N-1], task.Gold.Edit.Pointer, task.ID)
	}
}

func TestRelayOnAShortBookEditsItsParagraphsAgain(t *testing.T) {
	p := plan(t, sample(t, "lighthouse.md"), Options{Seed: 1, PerFamily: 1, RelayPairs: 20, Families: []Family{Relay}})
	require.Len(t, p.Tasks, 1)
	steps := p.Tasks[0].Steps
	require.Len(t, steps, 40)
	targets := map[string]int{}
	for _, s := range steps {
		if !s.Inverse {
			targets[s.Params.Target]++
		}
	}
	require.Less(t, len(targets), 20, "the book has fewer plain paragraphs than pairs: some are edited again")
	require.Greater(t, len(targets), 3)
}
