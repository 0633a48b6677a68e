package cursoragent

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/testbook"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// bookTask is one navigation task over a real book with its ground truth.
type bookTask struct {
	name  string
	word  string
	mode  Mode
	n     int
	truth []int // matching item IDs in document order
}

// pickNames chooses names from the book's own text: capitalised words of
// at least four letters that never occur in lower case and appear in
// between lo and hi non-heading items.
func pickNames(d *document.Document, lo, hi, count int) []string {
	df, lower := map[string]int{}, map[string]bool{}
	for _, it := range d.Items() {
		if it.Kind == document.Heading {
			continue
		}
		seen := map[string]bool{}
		for _, tok := range textnorm.Tokenize(it.Text) {
			r := []rune(tok.Text)
			if !unicode.IsUpper(r[0]) {
				lower[tok.Norm] = true
				continue
			}
			if len(r) >= 4 && !strings.ContainsRune(tok.Text, '\'') && !seen[tok.Text] {
				seen[tok.Text] = true
				df[tok.Text]++
			}
		}
	}
	var names []string
	for w, n := range df {
		if n >= lo && n <= hi && !lower[textnorm.Fold(w)] {
			names = append(names, w)
		}
	}
	sort.Strings(names)
	step := max(1, len(names)/count)
	var out []string
	for i := 0; i < len(names) && len(out) < count; i += step {
		out = append(out, names[i])
	}
	return out
}

func bookTasks(d *document.Document, names []string) []bookTask {
	var out []bookTask
	for _, w := range names {
		m := textnorm.NewMatcher(w)
		var truth []int
		for _, it := range d.Items() {
			if it.Kind != document.Heading && m.Match(it.Text) {
				truth = append(truth, it.ID)
			}
		}
		out = append(out,
			bookTask{"first " + w, w, FirstMatch, 0, truth},
			bookTask{"3rd " + w, w, Nth, 3, truth},
			bookTask{"last " + w, w, Last, 0, truth},
			bookTask{"collect " + w, w, Collect, 0, truth})
	}
	return out
}

// exact checks a result against the ground truth.
func (bt bookTask) exact(d *document.Document, s *editor.Session, res Result, book string) bool {
	want := ""
	switch bt.mode {
	case FirstMatch:
		want = d.ByID(bt.truth[0]).Pointer().String()
	case Nth:
		want = d.ByID(bt.truth[bt.n-1]).Pointer().String()
	case Last:
		want = d.ByID(bt.truth[len(bt.truth)-1]).Pointer().String()
	case Collect:
		tv, err := s.Targets(book, res.TargetSet)
		if err != nil || len(tv.Items) != len(bt.truth) {
			return false
		}
		for i, it := range tv.Items {
			if it.Pointer.ID != bt.truth[i] {
				return false
			}
		}
		return true
	}
	return res.Success && res.Pointer == want
}

func runBookTask(t *testing.T, s *editor.Session, book string, bt bookTask, spec cursor.Spec, o *oracle) Result {
	t.Helper()
	a := &Agent{Provider: &fake{answer: o.answer}, Model: "m", Session: s}
	res, err := a.Run(context.Background(), Task{Book: book, Goal: "an item that mentions " + bt.word,
		Mode: bt.mode, N: bt.n, Cursor: spec, TargetSet: "set " + bt.name})
	if err != nil {
		t.Fatalf("%s: %v", bt.name, err)
	}
	return res
}

func keywordSpec(word string) cursor.Spec {
	s := cursor.NewSpec(cursor.Keyword)
	s.Keywords, s.IncludeHeadings = []string{word}, false
	return s
}

// TestFaultInjection runs first / n-th / last / collect tasks over the real
// books with an oracle model that answers from ground truth but returns
// malformed JSON, prose- or fence-wrapped JSON, invented or repeated
// pointers, paraphrased excerpts or empty replies at a rate. At 0 %, 10 % and
// 20 % every result must be exactly right; at any rate a result that is not
// right must not claim success (it is incomplete, with the items it could
// not judge); the figures are logged.
func TestFaultInjection(t *testing.T) {
	for name, src := range testbook.Books(t) {
		d := markdown.Parse(src)
		s := editor.New()
		s.Load(name, src)
		tasks := bookTasks(d, pickNames(d, 6, 60, 4))
		baseCalls := 0
		for _, rate := range []float64{0, 0.1, 0.2, 0.4} {
			ok, calls, faults, incomplete := 0, 0, 0, 0
			for i, bt := range tasks {
				for _, spec := range []cursor.Spec{keywordSpec(bt.word), cursor.NewSpec(cursor.FullScan)} {
					o := &oracle{truth: truthOf(bt.truth), rate: rate, rng: rand.New(rand.NewSource(int64(i + 1)))}
					res := runBookTask(t, s, name, bt, spec, o)
					calls += res.Usage.Calls
					faults += o.faults
					switch {
					case bt.exact(d, s, res, name):
						ok++
					case res.Success || !res.Incomplete:
						t.Errorf("%s (%s cursor) at %.0f%% faults: a wrong result not marked incomplete: %q (%s)",
							bt.name, spec.Type, rate*100, res.Pointer, res.Summary)
					case rate <= 0.2:
						t.Errorf("%s (%s cursor) at %.0f%% faults: wrong result %q (%s)", bt.name, spec.Type, rate*100, res.Pointer, res.Summary)
					default:
						incomplete++
					}
				}
			}
			if rate == 0 {
				baseCalls = calls
			}
			t.Logf("%s: fault rate %2.0f%%: %d/%d tasks exactly right, %d incomplete (never wrong), %d model calls (%+d vs 0%%), %d faults injected",
				name, rate*100, ok, 2*len(tasks), incomplete, calls, calls-baseCalls, faults)
		}
	}
}

// TestCost compares the input tokens a task spends through a keyword
// cursor and a full-scan cursor with the whole book in one prompt (the
// full-context baseline), all counted with llm.EstimateTokens. ρ = tokens /
// full-context tokens. Targets: first / n-th through a keyword cursor ρ ≤ 0.05
// at ≤ 3 model calls; collect through a keyword cursor ρ ≤ 1.3.
func TestCost(t *testing.T) {
	for name, src := range testbook.Books(t) {
		d := markdown.Parse(src)
		s := editor.New()
		s.Load(name, src)
		full := llm.EstimateTokens(systemPrompt) + llm.EstimateTokens(string(src)) + 50
		tasks := bookTasks(d, pickNames(d, 6, 60, 3))
		var rows []string
		for i, bt := range tasks {
			for _, v := range []struct {
				label string
				spec  cursor.Spec
			}{{"keyword", keywordSpec(bt.word)}, {"full-scan", cursor.NewSpec(cursor.FullScan)}} {
				o := &oracle{truth: truthOf(bt.truth), rng: rand.New(rand.NewSource(int64(i)))}
				res := runBookTask(t, s, name, bt, v.spec, o)
				rho := float64(res.Usage.InputTokens) / float64(full)
				rows = append(rows, fmt.Sprintf("%-22s %-9s calls %4d  input tokens %7d  ρ %.4f", bt.name, v.label, res.Usage.Calls, res.Usage.InputTokens, rho))
				if v.label != "keyword" {
					continue
				}
				switch bt.mode {
				case FirstMatch, Nth, Last:
					if rho > 0.05 || res.Usage.Calls > 3 {
						t.Errorf("%s via keyword cursor: ρ %.4f with %d calls; target ρ ≤ 0.05 at ≤ 3 calls", bt.name, rho, res.Usage.Calls)
					}
				case Collect:
					if rho > 1.3 {
						t.Errorf("%s via keyword cursor: ρ %.4f; target ≤ 1.3", bt.name, rho)
					}
				}
			}
		}
		t.Logf("%s: full-context baseline %d input tokens\n%s", name, full, strings.Join(rows, "\n"))
	}
}
