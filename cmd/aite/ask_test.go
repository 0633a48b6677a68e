package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/textnorm"
)

type scenario struct {
	Name            string `json:"name"`
	Book            string `json:"book"`
	Question        string `json:"question"`
	ExpectPointer   string `json:"expectPointer"`
	ExpectFile      string `json:"expectFile"`
	ExpectUnchanged bool   `json:"expectUnchanged"`
}

func loadScenarios(t *testing.T) map[string]scenario {
	raw, err := os.ReadFile(filepath.Join("testdata", "scenarios", "scenarios.json"))
	require.NoError(t, err)
	var list []scenario
	require.NoError(t, json.Unmarshal(raw, &list))
	out := map[string]scenario{}
	for _, s := range list {
		out[s.Name] = s
	}
	return out
}

// request views of the fake server's requests.
type apiMsg struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func messagesOf(r llmtest.Request) []apiMsg {
	var body struct {
		Messages []apiMsg `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Messages
}

func text(m apiMsg) string {
	if s, ok := m.Content.(string); ok {
		return s
	}
	b, _ := json.Marshal(m.Content)
	return string(b)
}

// lastToolResult is the content of the newest tool message.
func lastToolResult(r llmtest.Request) string {
	ms := messagesOf(r)
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == "tool" {
			return text(ms[i])
		}
	}
	return ""
}

func assistantTurns(r llmtest.Request) int {
	n := 0
	for _, m := range messagesOf(r) {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

func say(s string) llmtest.Response {
	return llmtest.Response{Chunks: []string{llmtest.ContentChunk(s), llmtest.FinishChunk("stop")}}
}

func callTool(name string, args any) llmtest.Response {
	b, _ := json.Marshal(args)
	id := fmt.Sprintf("call_%s_%d", name, time.Now().UnixNano())
	return llmtest.Response{Chunks: []string{
		llmtest.ToolCallChunk(llmtest.ToolFrag{Index: 0, ID: id, Name: name, Args: ""}),
		llmtest.ToolCallChunk(llmtest.ToolFrag{Index: 0, Args: string(b)}),
		llmtest.FinishChunk("tool_calls")}}
}

// cursorOracle answers the cursor agent's decision requests from ground
// truth: the items of the batch whose ID is in truth.
func cursorOracle(r llmtest.Request, truth map[int]bool) llmtest.Response {
	ms := messagesOf(r)
	var batch struct {
		Items []struct {
			Pointer string `json:"pointer"`
		} `json:"items"`
	}
	for _, m := range ms {
		if m.Role == "user" && strings.Contains(text(m), `"type":"batch"`) {
			_ = json.Unmarshal([]byte(text(m)), &batch)
		}
	}
	ev := []map[string]string{}
	for _, it := range batch.Items {
		var id int
		fmt.Sscanf(it.Pointer, "%d:", &id)
		if truth[id] {
			ev = append(ev, map[string]string{"pointer": it.Pointer, "excerpt": "…", "reason": "it matches"})
		}
	}
	b, _ := json.Marshal(map[string]any{"action": "continue", "batchFound": len(ev) > 0, "newEvidence": ev,
		"progress": "", "needMoreContext": false, "contextPointers": []string{}})
	return say(string(b))
}

func isCursorAgent(r llmtest.Request) bool { return r.JSON != nil && r.JSON["response_format"] != nil }

// paragraphsMentioning lists the IDs of paragraphs (not headings, not code)
// that mention a word.
func paragraphsMentioning(t *testing.T, book, word string) map[int]bool {
	src, err := os.ReadFile(book)
	require.NoError(t, err)
	m := textnorm.NewMatcher(word)
	out := map[int]bool{}
	for _, it := range markdown.Parse(src).Items() {
		if it.Kind != document.Heading && it.Kind != document.Code && m.Match(it.Text) {
			out[it.ID] = true
		}
	}
	return out
}

// pointerIn pulls the "pointer" of a run_cursor_agent or read result.
func pointerIn(result string) string {
	var v struct {
		Pointer string `json:"pointer"`
		Target  string `json:"target"`
	}
	_ = json.Unmarshal([]byte(result), &v)
	if v.Pointer != "" {
		return v.Pointer
	}
	return v.Target
}

// world is a fake model server plus a copy of the sample book.
type world struct {
	t    *testing.T
	srv  *llmtest.Server
	book string
}

func newWorld(t *testing.T, drive func(r llmtest.Request, turn int) llmtest.Response, truth map[int]bool) *world {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	book := filepath.Join(t.TempDir(), "book.md")
	require.NoError(t, os.WriteFile(book, src, 0o644))
	srv := llmtest.NewServerFunc(t, func(r llmtest.Request) llmtest.Response {
		if isCursorAgent(r) {
			return cursorOracle(r, truth)
		}
		return drive(r, assistantTurns(r))
	})
	t.Setenv("AITE_MODEL", "openai:test-model")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	return &world{t: t, srv: srv, book: book}
}

// report logs the model calls and (estimated) input tokens a scenario spent.
func (w *world) report(name string) {
	calls, tokens := 0, 0
	for _, r := range w.srv.Requests() {
		calls++
		tokens += llm.EstimateTokens(string(r.Body))
	}
	w.t.Logf("scenario %s: %d model calls, ~%d input tokens (llm.EstimateTokens over request bodies)", name, calls, tokens)
}

func (w *world) ask(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := execute(append([]string{"ask", w.book}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// findWith drives the command agent through a keyword cursor and the cursor
// agent in a mode, then answers with the pointer it got.
func findWith(mode string, n int) func(llmtest.Request, int) llmtest.Response {
	return func(r llmtest.Request, turn int) llmtest.Response {
		switch turn {
		case 0:
			return callTool("cursor-create_keyword_cursor", map[string]any{"keywords": []string{"Звёздочкин"}, "includeHeadings": false})
		case 1:
			var c struct {
				CursorName string `json:"cursorName"`
			}
			_ = json.Unmarshal([]byte(lastToolResult(r)), &c)
			return callTool("cursor_agent-run_cursor_agent", map[string]any{"cursorName": c.CursorName,
				"taskDescription": "a paragraph that mentions professor Zvezdochkin; not a heading, not the telegram", "mode": mode, "n": n})
		}
		return say("Found at " + pointerIn(lastToolResult(r)) + ".")
	}
}

func TestAskFindsMentions(t *testing.T) {
	sc := loadScenarios(t)
	for _, c := range []struct {
		name, mode string
		n          int
	}{{"first-mention", "FirstMatch", 0}, {"fourth-mention", "Nth", 4}, {"last-mention", "Last", 0}} {
		t.Run(c.name, func(t *testing.T) {
			s := sc[c.name]
			truth := paragraphsMentioning(t, filepath.Join("..", "..", s.Book), "Звёздочкин")
			w := newWorld(t, findWith(c.mode, c.n), truth)
			before, _ := os.ReadFile(w.book)
			out, log, code := w.ask(s.Question)
			require.Equal(t, 0, code, log)
			require.Contains(t, out, "Found at "+s.ExpectPointer+".")
			require.Contains(t, log, "▸ cursor_agent-run_cursor_agent")
			require.Contains(t, log, "batch 1 of ~")
			after, _ := os.ReadFile(w.book)
			require.Equal(t, before, after, "a question writes nothing")
			w.report(c.name)
		})
	}
}

func TestAskRewritesOneParagraph(t *testing.T) {
	s := loadScenarios(t)["rewrite-first-varya"]
	truth := paragraphsMentioning(t, filepath.Join("..", "..", s.Book), "Варя")
	var original string
	drive := func(r llmtest.Request, turn int) llmtest.Response {
		switch turn {
		case 0:
			return callTool("cursor-create_keyword_cursor", map[string]any{"keywords": []string{"Варя"}})
		case 1:
			return callTool("cursor_agent-run_cursor_agent", map[string]any{"cursorName": "kwd_cursor_0",
				"taskDescription": "the paragraph where Varya first appears"})
		case 2:
			return callTool("editor-read", map[string]any{"pointer": pointerIn(lastToolResult(r))})
		case 3:
			var v struct {
				Target string `json:"target"`
				Items  []struct {
					Markdown string `json:"markdown"`
				} `json:"items"`
			}
			_ = json.Unmarshal([]byte(lastToolResult(r)), &v)
			original = v.Items[0].Markdown
			return callTool("editor-replace_text", map[string]any{"pointer": v.Target,
				"markdown": original + " На ней был зелёный шарф."})
		}
		return say("Rewrote " + pointerIn(lastToolResult(r)) + ".")
	}
	w := newWorld(t, drive, truth)
	before, _ := os.ReadFile(w.book)
	out, log, code := w.ask(s.Question, "--yes")
	require.Equal(t, 0, code, log)
	require.Contains(t, out, "Rewrote 4:1.1.p1.")
	// The diff shows the change with bounded context, not the paragraph twice.
	require.Contains(t, out, "+… на этом слове его увезли по срочному делу о пропавшей козе. На ней был зелёный шарф.\n")
	require.NotContains(t, out, original)
	require.Contains(t, log, "✎ replace 4:1.1.p1")
	after, _ := os.ReadFile(w.book)
	want, err := os.ReadFile(filepath.Join("testdata", "scenarios", s.ExpectFile))
	require.NoError(t, err)
	require.Equal(t, string(want), string(after))
	require.Equal(t, string(before), strings.Replace(string(after), " На ней был зелёный шарф.", "", 1),
		"every other byte is identical")
	bak, _ := os.ReadFile(w.book + ".bak")
	require.Equal(t, before, bak)
	w.report(s.Name)

	// aite undo restores the version before the command, byte for byte.
	var o, e bytes.Buffer
	require.Equal(t, 0, execute([]string{"undo", w.book}, strings.NewReader(""), &o, &e), e.String())
	restored, _ := os.ReadFile(w.book)
	require.Equal(t, before, restored)
	require.Equal(t, 1, execute([]string{"undo", w.book}, strings.NewReader(""), &o, &e))
}

func TestAskWithoutTerminalWritesNothing(t *testing.T) {
	drive := func(r llmtest.Request, turn int) llmtest.Response {
		if turn == 0 {
			return callTool("editor-replace_text", map[string]any{"pointer": "2:1.p1", "markdown": "Короче."})
		}
		return say("Done.")
	}
	w := newWorld(t, drive, nil)
	before, _ := os.ReadFile(w.book)
	out, log, code := w.ask("shorten the intro")
	require.Equal(t, 1, code)
	require.Contains(t, log, "not a terminal")
	require.Contains(t, log, "--yes")
	require.Contains(t, out, "+Короче.")
	after, _ := os.ReadFile(w.book)
	require.Equal(t, before, after)
	_, log, code = w.ask("shorten the intro", "--dry-run")
	require.Equal(t, 0, code, log)
	require.Contains(t, log, "dry run")
	after, _ = os.ReadFile(w.book)
	require.Equal(t, before, after)
}

func TestAskRefusedEditIsHandled(t *testing.T) {
	s := loadScenarios(t)["delete-empty-after-chapter-2"]
	drive := func(r llmtest.Request, turn int) llmtest.Response {
		switch turn {
		case 0:
			return callTool("editor-read", map[string]any{"pointer": "1.2", "after": 1})
		case 1:
			return callTool("editor-delete", map[string]any{"pointer": "1.2"})
		}
		require.Contains(t, lastToolResult(r), "heading", "the refusal says why")
		return say("There is no empty paragraph after the heading of chapter 2 (35:1.2); nothing was deleted.")
	}
	w := newWorld(t, drive, nil)
	before, _ := os.ReadFile(w.book)
	out, log, code := w.ask(s.Question, "--yes")
	require.Equal(t, 0, code, log)
	require.Contains(t, out, "nothing was deleted")
	require.Contains(t, log, "✗")
	after, _ := os.ReadFile(w.book)
	require.Equal(t, before, after)
	w.report(s.Name)
}

func TestAskUnknownToolRecovers(t *testing.T) {
	s := loadScenarios(t)["unknown-tool-recovers"]
	drive := func(r llmtest.Request, turn int) llmtest.Response {
		switch turn {
		case 0:
			return callTool("editor-raed", map[string]any{"pointer": "1.p1"})
		case 1:
			require.Contains(t, lastToolResult(r), "editor-read", "the corrective result lists the real tools")
			return callTool("editor-read", map[string]any{"pointer": "1.p1"})
		}
		return say("It is " + pointerIn(lastToolResult(r)) + ".")
	}
	w := newWorld(t, drive, nil)
	out, log, code := w.ask(s.Question)
	require.Equal(t, 0, code, log)
	require.Contains(t, out, "It is "+s.ExpectPointer+".")
	w.report(s.Name)
}

func TestAskCanceledMidRunLeavesTheFile(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drive := func(r llmtest.Request, turn int) llmtest.Response {
		if turn == 0 {
			return callTool("editor-replace_text", map[string]any{"pointer": "2:1.p1", "markdown": "Изменено."})
		}
		cancel() // the second model call is under way: the user presses Ctrl-C
		return llmtest.Response{Chunks: []string{llmtest.ContentChunk("Almost")}, Hang: true}
	}
	w := newWorld(t, drive, nil)
	before, _ := os.ReadFile(w.book)
	var out, errb bytes.Buffer
	code := executeContext(ctx, []string{"ask", w.book, "change the intro", "--yes"}, strings.NewReader(""), &out, &errb)
	require.NotEqual(t, 0, code)
	require.Contains(t, errb.String(), "canceled")
	after, _ := os.ReadFile(w.book)
	require.Equal(t, before, after)
}

// TestAskPointersHoldInTheNextCommand: the pointer an ask prints for its
// insert names the inserted item in the next command; an insert that was
// not written leaves its ID unused for good.
func TestAskPointersHoldInTheNextCommand(t *testing.T) {
	insert := func(r llmtest.Request, turn int) llmtest.Response {
		if turn == 0 {
			return callTool("editor-insert_after", map[string]any{"pointer": "4:1.1.p1", "markdown": "Новый абзац от модели."})
		}
		return say("Inserted " + pointerIn(lastToolResult(r)) + ".")
	}
	w := newWorld(t, insert, nil)
	_, log, code := w.ask("add a paragraph", "--yes")
	require.Equal(t, 0, code, log)
	m := regexp.MustCompile(`✎ insert_after 4:1\.1\.p1 → (\S+)`).FindStringSubmatch(log)
	require.NotNil(t, m, log)
	r := mustRun(t, "read", w.book, m[1])
	require.Contains(t, r.stdout, "Новый абзац от модели.")
	r = mustRun(t, "read", w.book, "5:1.1.p2") // listed before the ask: its label moved, the ID holds
	require.NotContains(t, r.stdout, "Новый абзац от модели.")
	require.Contains(t, r.stderr, "5:1.1.p2 is now 5:1.1.p3")

	// Without a terminal nothing is written; the pointer printed names
	// nothing later, even after another insert.
	_, log, code = w.ask("add a paragraph")
	require.Equal(t, 1, code, log)
	m = regexp.MustCompile(`✎ insert_after 4:1\.1\.p1 → (\S+)`).FindStringSubmatch(log)
	require.NotNil(t, m, log)
	mustRun(t, "edit", w.book, "insert-after", "4:1.1.p1", "--text", "Вставка руками.")
	wantFail(t, 1, []string{"no longer exists"}, "read", w.book, m[1])
}

// TestAskJSON: --json prints the answer, the edits with their pointers
// before and after, what was written and the usage; nothing streams.
func TestAskJSON(t *testing.T) {
	insert := func(r llmtest.Request, turn int) llmtest.Response {
		if turn == 0 {
			return callTool("editor-insert_after", map[string]any{"pointer": "4:1.1.p1", "markdown": "Абзац из JSON."})
		}
		return say("Done.")
	}
	w := newWorld(t, insert, nil)
	out, log, code := w.ask("add a paragraph", "--yes", "--json")
	require.Equal(t, 0, code, log)
	var res struct {
		Answer string `json:"answer"`
		Edits  []struct {
			Op, Pointer, NewPointer, After string
		} `json:"edits"`
		Diff    string `json:"diff"`
		Written bool   `json:"written"`
		Usage   struct {
			InputTokens int `json:"inputTokens"`
		} `json:"usage"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Equal(t, "Done.", res.Answer)
	require.Len(t, res.Edits, 1)
	require.Equal(t, "insert_after", res.Edits[0].Op)
	require.Equal(t, "4:1.1.p1", res.Edits[0].Pointer)
	require.Contains(t, mustRun(t, "read", w.book, res.Edits[0].NewPointer).stdout, "Абзац из JSON.")
	require.True(t, res.Written)
	require.Contains(t, res.Diff, "+Абзац из JSON.")
	require.Contains(t, decodeObject(t, out), "usage") // the fake server reports no token counts
}

// TestAskOutOfSteps: a model that uses up --max-steps says so, writes
// nothing and exits 1, even with --yes.
func TestAskOutOfSteps(t *testing.T) {
	busy := func(r llmtest.Request, turn int) llmtest.Response {
		if r.JSON["tools"] == nil {
			return say("I could not finish.")
		}
		if turn == 0 {
			return callTool("editor-insert_after", map[string]any{"pointer": "4:1.1.p1", "markdown": "Недописано."})
		}
		return callTool("editor-read", map[string]any{"pointer": "4"})
	}
	w := newWorld(t, busy, nil)
	before := readFile(t, w.book)
	out, log, code := w.ask("do a lot", "--yes", "--max-steps", "2")
	require.Equal(t, 1, code, log)
	require.Contains(t, log, "the model ran out of steps (2 turns with tools)")
	require.Contains(t, out, "I could not finish.")
	require.Equal(t, before, readFile(t, w.book), "nothing written")
}
