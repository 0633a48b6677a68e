package protocol

import (
	"math"
	"slices"
)

// DefaultDisagreementSpread is the default disagreement threshold (§3.2).
const DefaultDisagreementSpread = 50

// Tallies computes the per-tool tallies of one turn's opinions for a call
// bound to instance ("" = global): entries for that instance plus
// non-instanced ones (§3.2). weightOf gives an advisor's weight by id.
//
// For instance "" only non-instanced entries count: an instanced entry never
// reaches a global call (IN5). Per tool: N voters, Mean = Σ wₐ·vₐ / Σ wₐ
// (kept within [Min, Max] against rounding), Min, Max, Spread = Max − Min,
// Disagree = N ≥ 2 ∧ Spread ≥ spread. Choices: a nil weightOf, or a weight
// that is not a positive finite number (an unknown id answers 0), counts as
// the default 1; spread ≤ 0 (or NaN) means DefaultDisagreementSpread; an
// opinion naming a tool twice votes once with its last value; votes under
// UnknownToolKey are not tallied. Tools are ordered by first appearance
// across the applicable opinions; tools without votes are absent (see
// TallyFor).
func Tallies(opinions []Opinion, weightOf func(id string) float64, instance string, spread float64) []Tally {
	if !(spread > 0) {
		spread = DefaultDisagreementSpread
	}
	type acc struct {
		Tally
		sumW, sumWV float64
	}
	var order []string
	accs := map[string]*acc{}
	for _, o := range opinions {
		if o.Instance != "" && o.Instance != instance {
			continue
		}
		w := 1.0
		if weightOf != nil {
			if x := weightOf(o.ID); x > 0 && !math.IsInf(x, 0) {
				w = x
			}
		}
		for tool, v := range lastVotes(o.Weights) {
			a := accs[tool]
			if a == nil {
				a = &acc{Tally: Tally{Tool: tool, Min: v, Max: v}}
				accs[tool] = a
			}
			a.N++
			a.sumW += w
			a.sumWV += w * v
			a.Min = math.Min(a.Min, v)
			a.Max = math.Max(a.Max, v)
		}
		for _, wt := range o.Weights {
			if _, ok := accs[wt.Tool]; ok && !slices.Contains(order, wt.Tool) {
				order = append(order, wt.Tool)
			}
		}
	}
	out := make([]Tally, 0, len(order))
	for _, tool := range order {
		a := accs[tool]
		t := a.Tally
		t.Mean = math.Max(t.Min, math.Min(t.Max, a.sumWV/a.sumW))
		t.Spread = t.Max - t.Min
		t.Disagree = t.N >= 2 && t.Spread >= spread
		out = append(out, t)
	}
	return out
}

// lastVotes returns one vote per tool (the last one written), skipping
// UnknownToolKey, empty tool names and non-finite values.
func lastVotes(ws []Weight) map[string]float64 {
	m := make(map[string]float64, len(ws))
	for _, w := range ws {
		if w.Tool == "" || w.Tool == UnknownToolKey || math.IsNaN(w.Value) || math.IsInf(w.Value, 0) {
			continue
		}
		m[w.Tool] = w.Value
	}
	return m
}

// TallyFor returns the tally of tool, or the zero-vote tally (N 0) when no
// opinion voted for it.
func TallyFor(tallies []Tally, tool string) Tally {
	for _, t := range tallies {
		if t.Tool == tool {
			return t
		}
	}
	return Tally{Tool: tool}
}
