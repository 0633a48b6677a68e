package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/eval/evaltest"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// evalArgs keep the command-line tests fast: one task per family, a relay
// of two pairs.
var evalArgs = []string{"--tasks", "1", "--relay-pairs", "2"}

// evalBook copies the sample book into a temp dir and generates the plan
// `aite eval` will make of it with evalArgs.
func evalBook(t *testing.T) (string, *eval.Plan) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "book.md")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	b, err := eval.NewBook("book.md", src, nil, 0)
	require.NoError(t, err)
	p, err := eval.Generate(b, eval.Options{Seed: 1, PerFamily: 1, RelayPairs: 2})
	require.NoError(t, err)
	return path, p
}

// fakeModel points aite at a fake OpenAI-compatible server answering with fn.
func fakeModel(t *testing.T, fn func(llmtest.Request) llmtest.Response) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewServerFunc(t, fn)
	t.Setenv("AITE_MODEL", "openai:fake-model")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	return srv
}

func decodeReport(t *testing.T, s string) eval.Report {
	t.Helper()
	var r eval.Report
	require.NoError(t, json.Unmarshal([]byte(s), &r), s)
	return r
}

func TestEvalOverTheFakeServer(t *testing.T) {
	path, plan := evalBook(t)
	o := evaltest.New(evaltest.Perfect, plan)
	o.ReportUsage = true
	srv := fakeModel(t, o.Handler())
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	res := run(t, "", append([]string{"eval", path, "--json"}, evalArgs...)...)
	require.Equal(t, 0, res.code, res.stderr)
	r := decodeReport(t, res.stdout)
	require.Equal(t, "openai:fake-model", r.Model)
	require.Equal(t, "book.md", r.Book)
	require.Len(t, r.Families, len(eval.Families))
	require.Equal(t, len(plan.Tasks), r.Total.Tasks)
	require.Equal(t, r.Total.Tasks, r.Total.Exact, res.stdout)
	require.Zero(t, r.Total.EstimatedCalls, "the server reported usage for every call")
	require.Equal(t, len(srv.Requests()), int(r.Total.Calls*float64(r.Total.Tasks)+0.5), "every request is counted")
	require.Nil(t, r.Total.Cost, "no prices for the model: the cost is unknown")
	require.Contains(t, res.stderr, "estimate (rough")
	require.Contains(t, res.stderr, "[1/")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, before, after, "the book is never written")

	// The same command again reports without calling the model.
	n := len(srv.Requests())
	again := run(t, "", append([]string{"eval", path, "--out", filepath.Join(t.TempDir(), "report.md")}, evalArgs...)...)
	require.Equal(t, 0, again.code, again.stderr)
	require.Len(t, srv.Requests(), n)
	require.Contains(t, again.stderr, "resuming: 10 of 10 tasks are done already")
	require.Contains(t, again.stderr, "the report is in ")
	require.Empty(t, again.stdout)
}

// TestEvalComparesTwoModels runs the three oracles over HTTP: the perfect
// one is exact on every task, the wrong one wrong, the broken one failed.
func TestEvalComparesTwoModels(t *testing.T) {
	path, plan := evalBook(t)
	dir := t.TempDir()
	for _, b := range []evaltest.Behaviour{evaltest.Perfect, evaltest.Wrong, evaltest.Broken} {
		fakeModel(t, evaltest.New(b, plan).Handler())
		out := filepath.Join(dir, string(b)+".json")
		res := run(t, "", append([]string{"eval", path, "--out", out, "--fresh", "--yes"}, evalArgs...)...)
		require.Equal(t, 0, res.code, res.stderr)
		js, err := os.ReadFile(out)
		require.NoError(t, err)
		r := decodeReport(t, string(js))
		got := map[evaltest.Behaviour]int{evaltest.Perfect: r.Total.Exact, evaltest.Wrong: r.Total.Wrong, evaltest.Broken: r.Total.Failed}[b]
		require.Equal(t, len(plan.Tasks), got, "%s: %+v", b, r.Total)
	}
	res := run(t, "", "eval", "--compare", filepath.Join(dir, "perfect.json"), filepath.Join(dir, "wrong.json"))
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "| first | 1/1 (100 %) | 0/1 (0 %) | 0 | 1 |")
	require.Contains(t, res.stdout, "| all | 10/10 (100 %) | 0/10 (0 %) | 0 | 10 |")
}

func TestEvalAsksBeforeACostlyRun(t *testing.T) {
	path, plan := evalBook(t)
	srv := fakeModel(t, evaltest.New(evaltest.Perfect, plan).Handler())
	res := run(t, "", append([]string{"eval", path, "--max-tokens", "1000"}, evalArgs...)...)
	require.Equal(t, 1, res.code)
	require.Contains(t, res.stderr, "not started: the estimated")
	require.Contains(t, res.stderr, "above --max-tokens 1000")
	require.Contains(t, res.stderr, "--yes")
	require.Empty(t, srv.Requests(), "nothing is asked of the model")
	res = run(t, "", append([]string{"eval", path, "--max-tokens", "1000", "--yes", "--families", "first"}, evalArgs...)...)
	require.Equal(t, 0, res.code, res.stderr)

	res = run(t, "", "eval", filepath.Join(t.TempDir(), "missing.md"), "--tasks", "1")
	require.Equal(t, 2, res.code, res.stderr)
	require.Contains(t, res.stderr, "missing.md does not exist")
}

func TestEvalStopsWhenTheModelRefusesTheKey(t *testing.T) {
	path, _ := evalBook(t)
	fakeModel(t, func(llmtest.Request) llmtest.Response {
		return llmtest.Response{Status: http.StatusUnauthorized, Body: `{"error":{"message":"bad key"}}`}
	})
	res := run(t, "", append([]string{"eval", path}, evalArgs...)...)
	require.Equal(t, 1, res.code)
	require.Contains(t, res.stderr, "cannot be used")
	require.Contains(t, res.stderr, "run the same command again to go on from there")
}

// TestEvalWithNothingToMeasure: a book that gives no task is an error that
// says why, not an empty report.
func TestEvalWithNothingToMeasure(t *testing.T) {
	fakeModel(t, func(llmtest.Request) llmtest.Response {
		return llmtest.Response{Status: http.StatusInternalServerError}
	})
	path := filepath.Join(t.TempDir(), "tiny.md")
	require.NoError(t, os.WriteFile(path, []byte("# T\n\nhello world.\n"), 0o644))
	res := run(t, "", "eval", path, "--tasks", "1", "--yes")
	require.Equal(t, 1, res.code, res.stderr)
	require.Contains(t, res.stderr, "nothing to measure on")
	require.Contains(t, res.stderr, "too few names")
}

func TestEvalRefusesBadFlagsBeforeAnyModel(t *testing.T) {
	t.Setenv("AITE_MODEL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path, _ := evalBook(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval", path, "--tasks", "0"}, 1, "--tasks must be between 1 and 50"},
		{[]string{"eval", path, "--relay-pairs", "-1"}, 1, "--relay-pairs must be between 0 and 100"},
		{[]string{"eval", path, "--families", "first,bogus"}, 1, `unknown family "bogus"`},
		{[]string{"eval", path, "--max-steps", "0"}, 1, "--max-steps must be between 1 and 100"},
		{[]string{"eval", "--compare", "a.json"}, 1, "--compare takes two JSON reports"},
		{[]string{"eval", "--compare", "missing-a.json", "missing-b.json"}, 2, "no such file"},
		{[]string{"eval"}, 1, "eval takes 1 argument"},
		{[]string{"eval", path}, 1, "AITE_MODEL"},
	} {
		res := run(t, "", c.args...)
		require.Equal(t, c.code, res.code, "%v: %s", c.args, res.stderr)
		require.Contains(t, res.stderr, c.want, c.args)
	}
}

func TestEvalBesideABookInAReadOnlyFolder(t *testing.T) {
	path, plan := evalBook(t)
	fakeModel(t, evaltest.New(evaltest.Perfect, plan).Handler())
	dir := filepath.Dir(path)
	require.NoError(t, os.Chmod(path, 0o444))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	res := run(t, "", append([]string{"eval", path, "--families", "first"}, evalArgs...)...)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "results in "+os.Getenv("XDG_CACHE_HOME"))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing beside the book but the book, even for root")
}

func TestEvalStopsAModelGoingRoundInCircles(t *testing.T) {
	path, plan := evalBook(t)
	srv := fakeModel(t, evaltest.New(evaltest.Broken, plan).Handler())
	args := append([]string{"eval", path, "--families", "first,nth,last", "--yes", "--max-tokens", "1000"}, evalArgs...)
	res := run(t, "", args...)
	require.Equal(t, 1, res.code, res.stderr)
	require.Contains(t, res.stderr, "stopped: this run spent")
	require.Contains(t, res.stderr, "more than twice what it was allowed (the larger of --max-tokens 1000 and the estimate")
	require.Contains(t, res.stderr, "2 tasks and 0 relay steps are kept")
	n := len(srv.Requests())
	res = run(t, "", args...)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "resuming: 2 of 3 tasks are done already")
	require.Greater(t, len(srv.Requests()), n, "the next run goes on with the same allowance")
	require.Contains(t, res.stdout, "| last | 1 | 0 (0 %) | 0 | 1 |")
}
