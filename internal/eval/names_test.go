package eval

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
)

func formsOf(b *Book) map[string]int {
	out := map[string]int{}
	for _, n := range b.names() {
		out[n.form] = len(n.items)
	}
	return out
}

func TestNames(t *testing.T) {
	src := "# A tale\n\n" +
		"Mr. Collins came in. Then Mr. Collins sat down and Mrs. Younge smiled.\n\n" +
		"The Collinses left, and Mrs. Younge stayed with Jane.\n\n" +
		"Young as she was, Jane spoke to Mrs. Younge about Collins.\n\n" +
		"The young man and Jane went to London. Long ago they knew London well.\n\n" +
		"She longed for London, and Jane agreed.\n"
	b, err := NewBook("tale.md", []byte(src), nil, 0)
	require.NoError(t, err)
	got := formsOf(b)
	require.Equal(t, 3, got["Collins"], "every form of a name counts (Collinses), after a title too (Mr. Collins)")
	require.NotContains(t, got, "Collinses", "one name, one spelling: the most frequent")
	require.Equal(t, 4, got["Jane"])
	require.Equal(t, 2, got["London"])
	require.NotContains(t, got, "Mrs", "a title is no name")
	require.NotContains(t, got, "Younge", `its search also finds "Young" opening a sentence`)
	require.NotContains(t, got, "Long", "written in lower case elsewhere")
	require.NotContains(t, got, "Then", "only ever opens a sentence")
}

func TestNamesOfTheSample(t *testing.T) {
	got := formsOf(sample(t, "zvezdochkin.md"))
	for _, n := range []string{"Звёздочкин", "Варя", "Ерофеич"} {
		require.Contains(t, got, n)
		require.GreaterOrEqual(t, got[n], 3, n)
	}
}

func TestEstimate(t *testing.T) {
	b := sample(t, "zvezdochkin.md")
	o := Overheads{Command: 3000, Batch: 1000}
	small := b.Estimate(plan(t, b, Options{Seed: 1, PerFamily: 1, RelayPairs: 2}), o, ModelInfo{})
	big := b.Estimate(plan(t, b, Options{Seed: 1, PerFamily: 4, RelayPairs: 8}), o, ModelInfo{})
	require.Nil(t, small.Cost, "no prices, no cost")
	require.Greater(t, small.Calls, 10*3, "at least three turns a task")
	require.Greater(t, small.InputTokens, 10*3*3000)
	require.Greater(t, big.InputTokens, 3*small.InputTokens)
	priced := b.Estimate(plan(t, b, Options{Seed: 1, PerFamily: 1, RelayPairs: 2}), o,
		ModelInfo{Pricing: &llm.Pricing{InputPer1K: 1, OutputPer1K: 2}})
	require.InDelta(t, float64(small.InputTokens)/1000+2*float64(small.OutputTokens)/1000, *priced.Cost, 1e-9)
	empty := b.Estimate(&Plan{}, o, ModelInfo{})
	require.Zero(t, empty.Calls)
}
