package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func runAite(stdin string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := execute(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// TestNavigateValidatesBeforeAnyModel: bad flags are refused with the
// command line's own names, even without a configured model.
func TestNavigateValidatesBeforeAnyModel(t *testing.T) {
	t.Setenv("AITE_MODEL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	book := writeBook(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"navigate", book, ""}, "the TASK is empty"},
		{[]string{"navigate", book, "x", "--mode", "second"}, "unknown --mode \"second\"; valid modes: first, nth, last, collect, summary"},
		{[]string{"navigate", book, "x", "--mode", "nth"}, "--mode nth needs --n N"},
		{[]string{"navigate", book, "x", "--n", "2"}, "--n is only for --mode nth"},
		{[]string{"navigate", book, "x", "--save", "s"}, "--save keeps what --mode collect collects"},
		{[]string{"navigate", book, "x", "--keywords", "—"}, "has no word to look for"},
		{[]string{"navigate", book, "x", "--max-batches", "600"}, "--max-batches must be between 1 and 512"},
		{[]string{"navigate", book, "x", "--resume", "abc"}, "--resume continues a task as it was started"},
		{[]string{"ask", book, "  "}, "the COMMAND is empty"},
		{[]string{"ask", book, "x", "--yes", "--dry-run"}, "give one of them"},
	}
	for _, tt := range tests {
		_, errOut, code := runAite("", tt.args...)
		require.Equal(t, 1, code, tt.args)
		require.Contains(t, errOut, tt.want, tt.args)
		require.NotContains(t, errOut, "no model is configured", tt.args)
	}
}

// TestNavigateExitCodes: 0 only for a success.
func TestNavigateExitCodes(t *testing.T) {
	truth := paragraphsMentioning(t, filepath.Join("..", "..", "examples", "zvezdochkin.md"), "Варя")
	w := newWorld(t, func(llmtest.Request, int) llmtest.Response { return say("unused") }, truth)
	_, errOut, code := runAite("", "navigate", w.book, "a paragraph about Varya", "--keywords", "Варя", "--mode", "nth", "--n", "999")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "the task did not succeed: Not found")
	_, errOut, code = runAite("", "navigate", w.book, "a paragraph about Varya", "--keywords", "Варя")
	require.Equal(t, 0, code, errOut)
}

// TestNavigateCollectListsSavesAndWalksTheSet: collect lists every match,
// --json gives all of them, --save keeps the set beside the book for later
// commands, and it still names the same items after an edit.
func TestNavigateCollectListsSavesAndWalksTheSet(t *testing.T) {
	truth := paragraphsMentioning(t, filepath.Join("..", "..", "examples", "zvezdochkin.md"), "часы")
	require.Greater(t, len(truth), 20, "more matches than a result keeps as evidence")
	w := newWorld(t, func(llmtest.Request, int) llmtest.Response { return say("unused") }, truth)
	out, errOut, code := runAite("", "navigate", w.book, "a paragraph about the clock", "--keywords", "часы",
		"--mode", "collect", "--headings=false", "--save", "clock")
	require.Equal(t, 0, code, errOut)
	lines := matchLine.FindAllString(out, -1)
	require.Len(t, lines, len(truth), "every match is listed:\n%s", out)
	require.Contains(t, out, `saved as the target set "clock"`)

	jsonOut, errOut, code := runAite("", "--json", "navigate", w.book, "a paragraph about the clock", "--keywords", "часы",
		"--mode", "collect", "--headings=false")
	require.Equal(t, 0, code, errOut)
	var res struct {
		Success bool `json:"success"`
		Matches []struct {
			Pointer string `json:"pointer"`
		} `json:"matches"`
	}
	require.NoError(t, json.Unmarshal([]byte(jsonOut), &res))
	require.True(t, res.Success)
	require.Len(t, res.Matches, len(truth))

	// An edit before the first match: the saved set still names its items.
	first := res.Matches[0].Pointer
	mustRun(t, "edit", w.book, "insert-before", first, "--text", "Новый абзац перед часами.")
	listed := mustRun(t, "targets", w.book, "clock").stdout
	require.Len(t, matchLine.FindAllString(listed, -1), len(truth), listed)
	require.NotContains(t, listed, "Новый абзац")
	require.Contains(t, mustRun(t, "targets", w.book).stdout, "clock")

	// A later task walks only the saved set.
	out, errOut, code = runAite("", "navigate", w.book, "a paragraph about the clock", "--targets", "clock", "--mode", "last")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "Last")

	// aite cursor walks the same set, in document order, its other options applied.
	saved := pointerLine.FindAllString(listed, -1)
	walked := mustRun(t, "cursor", w.book, "--targets", "clock", "--no-content", "--max-elements", "7").stdout
	require.Equal(t, saved, pointerLine.FindAllString(walked, -1), walked)
	require.Contains(t, walked, "── portion 2:", "portions of at most 7 items")
	back := pointerLine.FindAllString(mustRun(t, "cursor", w.book, "--targets", "clock", "--backward").stdout, -1)
	slices.Reverse(back)
	require.Equal(t, saved, back)
	none := mustRun(t, "cursor", w.book, "--targets", "clock", "--regex", "no such words").stdout
	require.Empty(t, pointerLine.FindAllString(none, -1), none)
	wantFail(t, 1, []string{"one of --keywords, --entry and --targets"}, "cursor", w.book, "--targets", "clock", "--keywords", "часы")
	wantFail(t, 1, []string{`no saved target set "nope"`, "clock"}, "cursor", w.book, "--targets", "nope")
	fresh := filepath.Join(t.TempDir(), "fresh.md")
	require.NoError(t, os.WriteFile(fresh, []byte("# A\n\nText.\n"), 0o644))
	wantFail(t, 1, []string{`no saved target set "clock"`, "none is saved", "--save NAME"}, "cursor", fresh, "--targets", "clock")
	wantFail(t, 1, []string{"none is saved"}, "navigate", fresh, "x", "--targets", "clock")

	// An item of the set deleted: every command that walks or lists the set says so.
	mustRun(t, "edit", w.book, "delete", saved[0])
	r := mustRun(t, "cursor", w.book, "--targets", "clock", "--no-content")
	require.Equal(t, saved[1:], pointerLine.FindAllString(r.stdout, -1))
	require.Contains(t, r.stderr, `1 item of the saved target set "clock" no longer exists`)
	require.Contains(t, mustRun(t, "targets", w.book, "clock").stdout, "(1 item of the set no longer exists)")
	_, errOut, _ = runAite("", "navigate", w.book, "a paragraph about the clock", "--targets", "clock", "--mode", "last")
	require.Contains(t, errOut, "no longer exists")
}

// TestNavigateBatchLimitIsIncompleteAndResumes: a walk stopped by
// --max-batches says so, exits 1 and tells how to go on; --resume does.
func TestNavigateBatchLimitIsIncompleteAndResumes(t *testing.T) {
	truth := paragraphsMentioning(t, filepath.Join("..", "..", "examples", "zvezdochkin.md"), "часы")
	w := newWorld(t, func(llmtest.Request, int) llmtest.Response { return say("unused") }, truth)
	out, errOut, code := runAite("", "navigate", w.book, "a paragraph about the clock", "--mode", "collect",
		"--headings=false", "--max-batches", "1")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, "Incomplete: the step limit (1 batches)")
	m := regexp.MustCompile(`to read on: aite navigate \S+ --resume (\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	for i := 0; i < 10; i++ {
		out, errOut, code = runAite("", "navigate", w.book, "--resume", m[1])
		if code == 0 {
			break
		}
		require.Contains(t, out, "to read on", errOut)
	}
	require.Equal(t, 0, code, errOut)
	require.Equal(t, len(truth), len(matchLine.FindAllString(out, -1)), out)
}

// TestNavigateWithBrokenReplies: an OpenAI-compatible model that breaks 20 %
// of its replies never makes navigate report a wrong answer as a success.
func TestNavigateWithBrokenReplies(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "zvezdochkin.md")
	truth := paragraphsMentioning(t, path, "Звёздочкин")
	var mu sync.Mutex
	rng := rand.New(rand.NewSource(7))
	w := newWorld(t, func(llmtest.Request, int) llmtest.Response { return say("unused") }, truth)
	w.srv.SetHandler(func(r llmtest.Request) llmtest.Response {
		mu.Lock()
		broken := rng.Float64() < 0.2
		mu.Unlock()
		if broken {
			return say("Sorry — here is no JSON.")
		}
		return cursorOracle(r, truth)
	})
	wrong := 0
	for n := 1; n <= 6; n++ {
		out, _, code := runAite("", "--json", "navigate", w.book, "a mention of Zvezdochkin", "--mode", "nth",
			"--n", strconv.Itoa(n), "--headings=false")
		var res struct {
			Success    bool   `json:"success"`
			Incomplete bool   `json:"incomplete"`
			Pointer    string `json:"pointer"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &res), out)
		if res.Success {
			require.Equal(t, 0, code)
			var id int
			_, _ = fmt.Sscanf(res.Pointer, "%d:", &id)
			if id != nthID(truth, n) {
				wrong++
			}
		} else {
			require.Equal(t, 1, code)
			require.True(t, res.Incomplete || res.Pointer == "")
		}
	}
	require.Zero(t, wrong, "a wrong answer reported as a success")
}

// nthID is the n-th of a set of IDs in increasing (document) order.
func nthID(ids map[int]bool, n int) int {
	var all []int
	for id := range ids {
		all = append(all, id)
	}
	slices.Sort(all)
	return all[n-1]
}

// matchLine is a line of a collect task's match list: pointer, kind, excerpt.
var matchLine = regexp.MustCompile(`(?m)^\d+:\S+ +[A-Za-z]+ +\S`)

// pointerLine is the pointer that starts a line of an item.
var pointerLine = regexp.MustCompile(`(?m)^\d+:\S+`)
