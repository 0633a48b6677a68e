package eval

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/aitexteditor/aite/internal/document"
)

// Options say what to generate.
type Options struct {
	Seed uint64
	// PerFamily is the number of tasks of each family (a relay is one task).
	PerFamily int
	// Families to generate; nil: every family.
	Families []Family
	// RelayPairs is the number of forward/inverse command pairs of the relay.
	RelayPairs int
}

// Limits of Options.
const (
	DefaultPerFamily  = 5
	MaxPerFamily      = 50
	DefaultRelayPairs = 20
	MaxRelayPairs     = 100
)

// ErrOptions is wrapped by the errors of bad Options.
var ErrOptions = errors.New("invalid evaluation options")

// check validates the options and fills the defaults.
func (o *Options) check() error {
	if o.PerFamily == 0 {
		o.PerFamily = DefaultPerFamily
	}
	if o.PerFamily < 1 || o.PerFamily > MaxPerFamily {
		return fmt.Errorf("%w: tasks per family must be between 1 and %d (got %d)", ErrOptions, MaxPerFamily, o.PerFamily)
	}
	if o.RelayPairs < 0 || o.RelayPairs > MaxRelayPairs {
		return fmt.Errorf("%w: relay pairs must be between 0 and %d (got %d)", ErrOptions, MaxRelayPairs, o.RelayPairs)
	}
	if o.Families == nil {
		o.Families = slices.Clone(Families)
	}
	return nil
}

// gen holds what every family generator reads.
type gen struct {
	b     *Book
	opt   Options
	names []name // every name, most mentioned first
	notes []string
}

// Generate makes the plan of an evaluation of b. The same book and
// options always give the same plan: every family draws from its own
// random stream, seeded by the seed and the family's name, over candidates
// in a fixed order.
func Generate(b *Book, opt Options) (*Plan, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	g := &gen{b: b, opt: opt, names: b.names()}
	p := &Plan{Book: b.Name, Bytes: len(b.src), SHA256: digest(b.src), Tokens: b.Tokens(), Language: b.lang,
		Seed: opt.Seed, PerFamily: opt.PerFamily, RelayPairs: opt.RelayPairs, Families: opt.Families,
		ChapterLevel: b.level}
	for _, f := range opt.Families {
		tasks := g.family(f)
		for i := range tasks {
			tasks[i].ID = fmt.Sprintf("%s#%d", f, i+1)
			tasks[i].Family = f
		}
		p.Tasks = append(p.Tasks, tasks...)
	}
	p.Notes = g.notes
	return p, nil
}

// family generates the tasks of one family.
func (g *gen) family(f Family) []Task {
	rng := rand.New(rand.NewPCG(g.opt.Seed, familySeed(f)))
	tasks := generators[f](g, rng)
	want := g.opt.PerFamily
	if f == Relay {
		want = 1
	}
	if len(tasks) < want {
		g.notef("%s: %d of %d tasks: %s", f, len(tasks), want, g.shortage(f))
	}
	return tasks
}

// generators make the tasks of each family.
var generators = map[Family]func(*gen, *rand.Rand) []Task{
	First:   func(g *gen, rng *rand.Rand) []Task { return g.ordinal(First, rng) },
	Nth:     func(g *gen, rng *rand.Rand) []Task { return g.ordinal(Nth, rng) },
	Last:    func(g *gen, rng *rand.Rand) []Task { return g.ordinal(Last, rng) },
	Count:   (*gen).count,
	Chapter: (*gen).chapter,
	Collect: (*gen).collect,
	Walk:    (*gen).walk,
	Insert:  (*gen).insert,
	Replace: (*gen).replace,
	Relay:   (*gen).relay,
}

func familySeed(f Family) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(f))
	return h.Sum64()
}

func (g *gen) notef(format string, args ...any) {
	g.notes = append(g.notes, fmt.Sprintf(format, args...))
}

// shortage says why a family could not have all its tasks.
func (g *gen) shortage(f Family) string {
	switch f {
	case Count, Chapter:
		if g.b.level == 0 {
			return "the book has no chapters (fewer than two headings of one level)"
		}
	case Replace:
		return "not enough chapters open with a plain paragraph whose last sentence is unambiguous"
	case Relay:
		if g.opt.RelayPairs == 0 {
			return "no relay pairs were asked for"
		}
		return "the book has too few plain paragraphs to edit"
	}
	return "the book has too few names that qualify"
}

// pick returns up to n elements of xs in a random order.
func pick[T any](rng *rand.Rand, xs []T, n int) []T {
	perm := rng.Perm(len(xs))
	out := make([]T, 0, min(n, len(xs)))
	for _, i := range perm[:min(n, len(xs))] {
		out = append(out, xs[i])
	}
	return out
}

// withMentions returns the names with at least n mentions.
func (g *gen) withMentions(n int) []name {
	var out []name
	for _, nm := range g.names {
		if len(nm.items) >= n {
			out = append(out, nm)
		}
	}
	return out
}

// ordinal makes first, n-th and last tasks: every name has three mentions
// at least, so a neighbour of the answer exists.
func (g *gen) ordinal(f Family, rng *rand.Rand) []Task {
	var tasks []Task
	for _, nm := range pick(rng, g.withMentions(3), g.opt.PerFamily) {
		t := Task{Params: Params{Name: nm.form}}
		switch f {
		case First:
			t.Params.N = 1
			t.Gold.Pointers = pointers(nm.items[:1])
		case Nth:
			t.Params.N = 2 + rng.IntN(min(len(nm.items)-1, 6)-1)
			t.Gold.Pointers = pointers(nm.items[t.Params.N-1 : t.Params.N])
		case Last:
			t.Gold.Pointers = pointers(nm.items[len(nm.items)-1:])
		}
		t.Prompt = ordinalPrompt(f, t.Params)
		tasks = append(tasks, t)
	}
	return tasks
}

// count makes "how many paragraphs of chapter C mention X" tasks over
// the pairs where the answer is 1..30.
func (g *gen) count(rng *rand.Rand) []Task {
	type pair struct {
		nm name
		ch section
		n  int
	}
	var pairs []pair
	for _, nm := range g.names[:min(len(g.names), 40)] {
		for _, ch := range g.b.chapters {
			if n := countIn(nm.items, ch); n >= 1 && n <= 30 {
				pairs = append(pairs, pair{nm, ch, n})
			}
		}
	}
	var tasks []Task
	for _, p := range pick(rng, pairs, g.opt.PerFamily) {
		n := p.n
		t := Task{Params: g.chapterParams(p.ch), Gold: Gold{Count: &n}}
		t.Params.Name = p.nm.form
		t.Prompt = countPrompt(t.Params)
		tasks = append(tasks, t)
	}
	return tasks
}

func countIn(items []*document.Item, ch section) int {
	n := 0
	for _, it := range items {
		if ch.heading.Index() < it.Index() && it.Index() < ch.end {
			n++
		}
	}
	return n
}

func (g *gen) chapterParams(ch section) Params {
	return Params{Chapter: ch.heading.Pointer().String(), ChapterTitle: ch.heading.Text, ChapterLevel: g.b.level}
}

// chapter makes "which chapter first mentions X" tasks over the names
// whose first mention is inside a chapter.
func (g *gen) chapter(rng *rand.Rand) []Task {
	var cands []name
	for _, nm := range g.names {
		if _, ok := g.b.chapterOf(nm.items[0].Index()); ok {
			cands = append(cands, nm)
		}
	}
	var tasks []Task
	for _, nm := range pick(rng, cands, g.opt.PerFamily) {
		ch, _ := g.b.chapterOf(nm.items[0].Index())
		t := Task{Params: Params{Name: nm.form, ChapterLevel: g.b.level},
			Gold: Gold{Pointers: []string{ch.heading.Pointer().String()}}}
		t.Prompt = chapterPrompt(t.Params, g.b.chapters[0].heading.Text)
		tasks = append(tasks, t)
	}
	return tasks
}

// namePair is two names and the paragraphs where both appear.
type namePair struct {
	x, y string
	both []*document.Item
}

// pairs returns the pairs of names (among the 30 most mentioned) whose
// paragraphs in common number lo..hi.
func (g *gen) pairs(lo, hi int) []namePair {
	top := g.names[:min(len(g.names), 30)]
	var out []namePair
	for i, x := range top {
		for _, y := range top[i+1:] {
			if both := g.b.mentions(x.form, y.form); len(both) >= lo && len(both) <= hi {
				out = append(out, namePair{x.form, y.form, both})
			}
		}
	}
	return out
}

// collect makes "every paragraph where X and Y both appear" tasks.
func (g *gen) collect(rng *rand.Rand) []Task {
	var tasks []Task
	for _, p := range pick(rng, g.pairs(2, 12), g.opt.PerFamily) {
		t := Task{Params: Params{Name: p.x, Other: p.y}, Gold: Gold{Pointers: pointers(p.both)}}
		t.Prompt = collectPrompt(t.Params)
		tasks = append(tasks, t)
	}
	return tasks
}

// walk makes cursor-agent tasks: walk the paragraphs of X and find the
// first, n-th, last or every one where Y appears too.
func (g *gen) walk(rng *rand.Rand) []Task {
	modes := []string{"first", "nth", "last", "collect"}
	var tasks []Task
	for k, p := range pick(rng, g.pairs(3, 12), g.opt.PerFamily) {
		both := p.both
		t := Task{Params: Params{Name: p.x, Other: p.y, Mode: modes[k%len(modes)]}}
		switch t.Params.Mode {
		case "first":
			t.Gold.Pointers = pointers(both[:1])
		case "nth":
			t.Params.N = 2 + rng.IntN(min(len(both)-1, 4)-1)
			t.Gold.Pointers = pointers(both[t.Params.N-1 : t.Params.N])
		case "last":
			t.Gold.Pointers = pointers(both[len(both)-1:])
		default:
			t.Gold.Pointers = pointers(both)
		}
		t.Walk = &WalkSpec{Goal: walkGoal(t.Params), Keywords: []string{t.Params.Name}, Mode: t.Params.Mode, N: t.Params.N}
		tasks = append(tasks, t)
	}
	return tasks
}
