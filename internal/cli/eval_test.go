package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/eval/evaltest"
	"github.com/aitexteditor/aite/internal/llm/models"
)

// sampleBook copies the sample book into a temp dir.
func sampleBook(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "book.md")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	return path
}

// evalOptions keep the tests fast: two tasks per family, a short relay.
var evalOptions = eval.Options{Seed: 1, PerFamily: 2, RelayPairs: 3}

// planOf generates the plan Eval will generate for the book.
func planOf(t *testing.T, path string, opt eval.Options) *eval.Plan {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	b, err := eval.NewBook(filepath.Base(path), src, nil, 0)
	require.NoError(t, err)
	p, err := eval.Generate(b, opt)
	require.NoError(t, err)
	return p
}

// runEval runs `aite eval --json` with the oracle and returns the report.
func runEval(t *testing.T, path string, o *evaltest.Oracle, opt eval.Options) (*eval.Report, string) {
	t.Helper()
	var out, log bytes.Buffer
	m := Model{Provider: o.Provider(), Info: models.Model{Key: "fake", ModelID: "oracle-" + string(o.Behaviour)}}
	err := Eval(context.Background(), EvalRequest{Book: path, Model: m, Options: opt, JSON: true, Yes: true,
		MaxSteps: 12, MaxCost: DefaultMaxCost, MaxTokens: DefaultMaxTokens, In: strings.NewReader(""), Out: &out, Log: &log,
		StoreRoot: t.TempDir(), TempDir: t.TempDir()})
	require.NoError(t, err, log.String())
	var r eval.Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &r))
	return &r, log.String()
}

func TestEvalScoresTheOracles(t *testing.T) {
	for _, b := range []evaltest.Behaviour{evaltest.Perfect, evaltest.Wrong, evaltest.Broken} {
		t.Run(string(b), func(t *testing.T) {
			path := sampleBook(t)
			before, _ := os.ReadFile(path)
			plan := planOf(t, path, evalOptions)
			r, log := runEval(t, path, evaltest.New(b, plan), evalOptions)
			after, _ := os.ReadFile(path)
			require.Equal(t, before, after, "the user's book is never written")
			require.Len(t, r.Families, len(eval.Families))
			for _, f := range r.Families {
				require.Positive(t, f.Tasks, f.Name)
				want := map[evaltest.Behaviour][3]int{evaltest.Perfect: {f.Tasks, 0, 0},
					evaltest.Wrong: {0, f.Tasks, 0}, evaltest.Broken: {0, 0, f.Tasks}}[b]
				require.Equal(t, want, [3]int{f.Exact, f.Wrong, f.Failed}, "%s: %+v\n%s", f.Name, tasksOf(r, f.Name), log)
			}
		})
	}
}

func tasksOf(r *eval.Report, family string) []eval.TaskResult {
	var out []eval.TaskResult
	for _, t := range r.Tasks {
		if string(t.Family) == family {
			out = append(out, t)
		}
	}
	return out
}

func TestEvalRelayOnAShortBook(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "lighthouse.md"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "lighthouse.md")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	opt := eval.Options{Seed: 1, PerFamily: 1, RelayPairs: 12, Families: []eval.Family{eval.Relay}}
	r, _ := runEval(t, path, evaltest.New(evaltest.Perfect, planOf(t, path, opt)), opt)
	require.Equal(t, eval.Exact, r.Tasks[0].Result, r.Tasks[0].Reason)
	require.Len(t, r.Tasks[0].Steps, 24)
	require.Equal(t, 0, *r.Tasks[0].BytesDiffer)
}

func TestEvalBar(t *testing.T) {
	var lines, tty bytes.Buffer
	p := eval.Progress{Done: 3, Total: 12, Task: "relay#1", Step: 2, Result: eval.Exact, Calls: 40, Tokens: 123456, Cost: 0.0123}
	newEvalBar(&lines, false).update(p)
	require.Equal(t, "[3/12] relay#1 step 2: exact (40 calls, 123k tokens, cost 0.0123 so far)\n", lines.String())
	bar := newEvalBar(&tty, true)
	p.Resumed = true
	bar.update(p)
	bar.end()
	require.Equal(t, "\r\033[K"+strings.Repeat("█", 6)+strings.Repeat("░", 18)+
		" 3/12 relay#1 step 2: exact (kept) · 40 calls, 123k tokens, cost 0.0123\n", tty.String())
}
