package eval

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	require.Equal(t, string(want), string(got))
}

// someResults are the results of a small evaluation, by hand.
func someResults() (*Plan, []TaskResult) {
	p := &Plan{Book: "book.md", Bytes: 40000, SHA256: "abc", Tokens: 10000, Seed: 1, PerFamily: 2, RelayPairs: 2,
		Families: []Family{First, Insert, Relay}, Notes: []string{"insert: 1 of 2 tasks: the book has too few names that qualify"}}
	diff, kept := 12, 0.9997
	res := []TaskResult{
		{ID: "first#1", Family: First, Gold: "4:1.1.p1", Answer: "4:1.1.p1", Result: Exact, Calls: 4, InputTokens: 3000, OutputTokens: 200, Seconds: 2.5, Commands: 1},
		{ID: "first#2", Family: First, Gold: "9:1.1.p6", Answer: "10:1.1.p7", Result: Wrong, Reason: "the gold is 9:1.1.p6", Calls: 5, InputTokens: 4000, OutputTokens: 250, EstimatedCalls: 5, Seconds: 3, Commands: 1},
		{ID: "insert#1", Family: Insert, Gold: "insert_after 9:1.1.p6", Result: Failed, Reason: "nothing written: the model ran out of steps (12 turns with tools)", Calls: 13, InputTokens: 20000, OutputTokens: 900, Seconds: 14, Commands: 1},
		{ID: "relay#1", Family: Relay, Gold: "the original book", Answer: "12 bytes differ", Result: Wrong, Commands: 4,
			Reason: "3 of 4 steps exact, 1 wrong, 0 failed; 12 bytes differ from the original (99.97 % preserved)", Calls: 12,
			InputTokens: 12000, OutputTokens: 800, Seconds: 20, BytesDiffer: &diff, Preserved: &kept, FinalBook: "/results/relay-1/book.md",
			Steps: []StepResult{{Task: "relay#1", Index: 1, Op: StepWord, Result: Exact, Calls: 3, InputTokens: 3000, OutputTokens: 200}}},
	}
	return p, res
}

func TestReportGolden(t *testing.T) {
	p, res := someResults()
	m := ModelInfo{Key: "mini", ModelID: "gpt-4o-mini", Pricing: &llm.Pricing{InputPer1K: 0.15, OutputPer1K: 0.6}}
	r := NewReport(p, m, res, "/results")
	var md bytes.Buffer
	require.NoError(t, r.WriteMarkdown(&md))
	golden(t, "report.md", md.Bytes())
	js, err := json.MarshalIndent(r, "", "  ")
	require.NoError(t, err)
	golden(t, "report.json", append(js, '\n'))

	require.Equal(t, FamilyRow{Name: "first", Tasks: 2, Exact: 1, Wrong: 1, Calls: 4.5, Rho: r.Families[0].Rho,
		Cost: r.Families[0].Cost, InputTokens: 7000, OutputTokens: 450, EstimatedCalls: 5, Seconds: 5.5}, r.Families[0])
	require.InDelta(t, 0.15*7+0.6*0.45, *r.Families[0].Cost, 1e-9)
	book := 0.15 * 10
	require.InDelta(t, ((0.15*3+0.6*0.2)/book+(0.15*4+0.6*0.25)/book)/2, r.Families[0].Rho, 1e-9)
	require.InDelta(t, (0.15*12+0.6*0.8)/(4*book), r.Tasks[3].Rho, 1e-9, "a relay's ρ is per command")
	require.Equal(t, 12, *r.Families[2].BytesDiffer)
}

func TestReportWithoutPrices(t *testing.T) {
	p, res := someResults()
	r := NewReport(p, ModelInfo{Key: "local", ModelID: "qwen3:8b"}, res, "")
	require.Equal(t, "tokens", r.RhoBasis)
	require.Nil(t, r.BookCost)
	require.Nil(t, r.Total.Cost)
	require.InDelta(t, 3200.0/10000, r.Tasks[0].Rho, 1e-9)
	js, err := json.Marshal(r)
	require.NoError(t, err)
	require.Contains(t, string(js), `"cost":null`, "unknown prices are not a zero cost")
	var md bytes.Buffer
	require.NoError(t, r.WriteMarkdown(&md))
	require.Contains(t, md.String(), "prices: unknown")
	require.NotContains(t, md.String(), "0.0000")
	require.Contains(t, md.String(), "`*`: tokens estimated", "a row is estimated")

	for i := range res {
		res[i].EstimatedCalls = 0
	}
	md.Reset()
	require.NoError(t, NewReport(p, ModelInfo{Key: "local"}, res, "").WriteMarkdown(&md))
	require.NotContains(t, md.String(), "tokens estimated", "no row is estimated, no footnote")
}

func TestCompareReports(t *testing.T) {
	p, res := someResults()
	a := NewReport(p, ModelInfo{Key: "mini", Pricing: &llm.Pricing{InputPer1K: 0.15, OutputPer1K: 0.6}}, res, "")
	res[1].Result, res[1].Reason = Exact, ""
	b := NewReport(p, ModelInfo{Key: "local"}, res, "")
	dir := t.TempDir()
	for name, r := range map[string]*Report{"a.json": a, "b.json": b} {
		js, err := json.Marshal(r)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), js, 0o644))
	}
	ra, err := LoadReport(filepath.Join(dir, "a.json"))
	require.NoError(t, err)
	rb, err := LoadReport(filepath.Join(dir, "b.json"))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, WriteComparison(&out, ra, rb))
	golden(t, "compare.md", out.Bytes())
	require.Contains(t, out.String(), "| first | 1/2 (50 %) | 2/2 (100 %) | 1 | 0 |")
	require.NotContains(t, out.String(), "not the same book")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"some": "thing"}`), 0o644))
	_, err = LoadReport(filepath.Join(dir, "c.json"))
	require.ErrorContains(t, err, "not a report of aite eval --json")
	rb.Seed = 9
	out.Reset()
	require.NoError(t, WriteComparison(&out, ra, rb))
	require.True(t, strings.Contains(out.String(), "not of the same book and plan"))
}
