package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func hcOpinion(id, instance string, ws ...Weight) Opinion {
	return Opinion{ID: id, Instance: instance, Weights: ws}
}

func hcWeightOf(m map[string]float64) func(string) float64 {
	return func(id string) float64 { return m[id] }
}

func TestTallies_InstancedAndWeighted(t *testing.T) {
	ops := []Opinion{
		hcOpinion("risk", "", Weight{"deploy", 10}, Weight{"delay", 90}),
		hcOpinion("style", "t1", Weight{"rewrite", 80}, Weight{"deploy", 40}),
		hcOpinion("style", "t2", Weight{"rewrite", 0}),
		hcOpinion("legal", "", Weight{"deploy", 70}, Weight{UnknownToolKey, 99}),
	}
	weightOf := hcWeightOf(map[string]float64{"risk": 2, "style": 1, "legal": 1})

	// Global call: non-instanced entries only.
	global := Tallies(ops, weightOf, "", 50)
	assert.Equal(t, []Tally{
		{Tool: "deploy", N: 2, Mean: (2*10 + 70) / 3.0, Min: 10, Max: 70, Spread: 60, Disagree: true},
		{Tool: "delay", N: 1, Mean: 90, Min: 90, Max: 90},
	}, global)

	// Instance t1: its own entry plus the non-instanced ones, never t2's.
	t1 := Tallies(ops, weightOf, "t1", 50)
	assert.Equal(t, []string{"deploy", "delay", "rewrite"}, hcTools(t1))
	d := TallyFor(t1, "deploy")
	assert.Equal(t, 3, d.N)
	assert.InDelta(t, (2*10+40+70)/4.0, d.Mean, 1e-9)
	assert.Equal(t, Tally{Tool: "rewrite", N: 1, Mean: 80, Min: 80, Max: 80}, TallyFor(t1, "rewrite"))

	t2 := Tallies(ops, weightOf, "t2", 50)
	assert.Equal(t, Tally{Tool: "rewrite", N: 1, Mean: 0, Min: 0, Max: 0}, TallyFor(t2, "rewrite"))

	// "unknown" votes are never tallied.
	assert.Equal(t, Tally{Tool: UnknownToolKey}, TallyFor(global, UnknownToolKey))
}

func hcTools(ts []Tally) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Tool)
	}
	return out
}

func TestTallies_DisagreementThreshold(t *testing.T) {
	ops := []Opinion{
		hcOpinion("a", "", Weight{"x", 20}, Weight{"y", 50}),
		hcOpinion("b", "", Weight{"x", 69}, Weight{"y", 100}),
	}
	ts := Tallies(ops, nil, "", 50)
	assert.False(t, TallyFor(ts, "x").Disagree, "spread 49 < 50")
	assert.True(t, TallyFor(ts, "y").Disagree, "spread 50 ≥ 50")
	assert.Equal(t, 49.0, TallyFor(ts, "x").Spread)

	// spread ≤ 0 falls back to the default 50; a custom threshold applies.
	assert.Equal(t, ts, Tallies(ops, nil, "", 0))
	assert.True(t, TallyFor(Tallies(ops, nil, "", 40), "x").Disagree)

	// One voter never disagrees, whatever the threshold.
	one := Tallies(ops[:1], nil, "", 0.0001)
	assert.False(t, TallyFor(one, "x").Disagree)
}

func TestTallies_DefaultsAndEdgeCases(t *testing.T) {
	ops := []Opinion{
		hcOpinion("ghost", "", Weight{"x", 10}),
		hcOpinion("neg", "", Weight{"x", 30}),
		// A tool named twice by one opinion votes once, with its last value.
		hcOpinion("dup", "", Weight{"x", 0}, Weight{"x", 50}),
	}
	// Unknown ids (0) and negative weights count as the default 1.
	ts := Tallies(ops, hcWeightOf(map[string]float64{"neg": -5, "dup": 1}), "", 50)
	assert.Equal(t, []Tally{{Tool: "x", N: 3, Mean: 30, Min: 10, Max: 50, Spread: 40}}, ts)

	// The weighted mean of equal votes is exactly that vote (no rounding below min).
	eq := []Opinion{hcOpinion("a", "", Weight{"x", 30}), hcOpinion("b", "", Weight{"x", 30})}
	got := TallyFor(Tallies(eq, hcWeightOf(map[string]float64{"a": 0.1, "b": 0.2}), "", 50), "x")
	assert.Equal(t, 30.0, got.Mean)

	assert.Empty(t, Tallies(nil, nil, "", 50))
	assert.Equal(t, Tally{Tool: "missing"}, TallyFor(nil, "missing"))
}

// Order: tools by first appearance across the applicable opinions.
func TestTallies_Order(t *testing.T) {
	ops := []Opinion{
		hcOpinion("a", "other", Weight{"z", 1}),
		hcOpinion("b", "", Weight{"c", 1}, Weight{"a", 2}),
		hcOpinion("c", "", Weight{"b", 1}, Weight{"c", 5}),
	}
	assert.Equal(t, []string{"c", "a", "b"}, hcTools(Tallies(ops, nil, "", 50)))
	assert.Equal(t, []string{"z", "c", "a", "b"}, hcTools(Tallies(ops, nil, "other", 50)))
}
