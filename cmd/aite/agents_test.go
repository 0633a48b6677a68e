package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/cli"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// agentScenario is one entry of testdata/scenarios/agents.json: an agent
// the server runs, a question on a book, the replies of the model (the
// agent's solutions, in order) and how many edits they make.
type agentScenario struct {
	Name     string            `json:"name"`
	Agent    string            `json:"agent"`
	Book     string            `json:"book"`
	Question string            `json:"question"`
	Replies  []json.RawMessage `json:"replies"`
	Edits    int               `json:"edits"`
}

func loadAgentScenarios(t *testing.T) map[string]agentScenario {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "scenarios", "agents.json"))
	require.NoError(t, err)
	var list []agentScenario
	require.NoError(t, json.Unmarshal(raw, &list))
	out := map[string]agentScenario{}
	for _, s := range list {
		out[s.Name] = s
	}
	return out
}

// replay is a fake model that answers the book editor's requests with the
// scenario's replies in order (a json_schema model: each solution is the
// reply's content); any other request fails the test.
func (s agentScenario) replay(t *testing.T) *llmtest.Server {
	t.Helper()
	var mu sync.Mutex
	n := 0
	return llmtest.NewServerFunc(t, func(r llmtest.Request) llmtest.Response {
		ms := messagesOf(r)
		if len(ms) == 0 || !strings.HasPrefix(text(ms[0]), "You are an editing assistant") {
			t.Errorf("unexpected request %d of another agent", r.N)
			return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"unexpected"}}`}
		}
		mu.Lock()
		defer mu.Unlock()
		if n >= len(s.Replies) {
			t.Errorf("request %d beyond the %d replies of the scenario", n+1, len(s.Replies))
			return llmtest.Response{Status: http.StatusBadRequest, Body: `{"error":{"message":"no more replies"}}`}
		}
		n++
		return say(string(s.Replies[n-1]))
	})
}

// agentWorld points the model configuration at srv and copies the
// scenario's book into a temporary directory.
func (s agentScenario) world(t *testing.T, srv *llmtest.Server) (book string, src []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", s.Book))
	require.NoError(t, err)
	book = filepath.Join(t.TempDir(), "book.md")
	require.NoError(t, os.WriteFile(book, src, 0o644))
	t.Setenv("AITE_MODEL", "openai:test-model")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("AITE_DATA", filepath.Join(t.TempDir(), "no-definitions-here"))
	return book, src
}

// cliEdits is the part of an edit both the CLI (--json) and the server
// (document.edit) report.
type cliEdit struct {
	Op, Pointer, NewPointer, Before, After string
}

// TestAskAnyAgent: `aite ask --agent bookEditorProtocol` runs the protocol
// book editor the server runs, with its edit approval: --yes approves it
// without a terminal and writes the book; the edit is the scenario's.
func TestAskAnyAgent(t *testing.T) {
	s := loadAgentScenarios(t)["protocol-formal-intro"]
	srv := s.replay(t)
	book, src := s.world(t, srv)
	out, log, code := runAsk(t, book, s.Question, "--agent", s.Agent, "--yes", "--json")
	require.Equal(t, 0, code, log)
	var res struct {
		Answer  string    `json:"answer"`
		Edits   []cliEdit `json:"edits"`
		Written bool      `json:"written"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Equal(t, "The paragraph 4:1.1.p1 is now formal.", res.Answer)
	require.Len(t, res.Edits, s.Edits)
	require.Equal(t, "replace", res.Edits[0].Op)
	require.Equal(t, "4:1.1.p1", res.Edits[0].Pointer)
	require.True(t, res.Written)
	require.Contains(t, log, "1 edit(s) approved (--yes)")
	after := readFile(t, book)
	require.NotEqual(t, string(src), after)
	require.Contains(t, after, "мать Варвары, служившая на почте")
	require.Len(t, srv.Requests(), len(s.Replies))
}

// TestAskAnyAgentAsksAtTheTerminal: the edit approval is asked at the
// terminal, as the web app asks it: "y" approves (then the write is
// confirmed); without a terminal (and without --yes) it is refused, the
// model reads call_denied and nothing is written.
func TestAskAnyAgentAsksAtTheTerminal(t *testing.T) {
	s := loadAgentScenarios(t)["protocol-formal-intro"]
	t.Run("approved", func(t *testing.T) {
		srv := s.replay(t)
		book, _ := s.world(t, srv)
		m, err := cli.LoadModel("", "")
		require.NoError(t, err)
		var out, log bytes.Buffer
		err = cli.Ask(context.Background(), cli.AskRequest{Book: book, Command: s.Question, Model: m, Agent: s.Agent,
			In: strings.NewReader("y\ny\n"), Out: &out, Log: &log, Interactive: true})
		require.NoError(t, err, log.String())
		require.Contains(t, log.String(), "? The agent wants to make 1 edit(s):")
		require.Contains(t, log.String(), "replace 4:1.1.p1")
		require.Contains(t, log.String(), "+ Телеграмму, с которой началась эта история")
		require.Contains(t, log.String(), "Write 1 edit(s) to")
		require.Contains(t, readFile(t, book), "мать Варвары")
	})
	t.Run("no terminal", func(t *testing.T) {
		srv := s.replay(t)
		book, src := s.world(t, srv)
		out, log, code := runAsk(t, book, s.Question, "--agent", s.Agent)
		require.Equal(t, 0, code, log)
		require.Contains(t, log, "✗ replace_text was not run: nobody can answer: standard input is not a terminal")
		require.NotContains(t, out, "+Телеграмму")
		require.Equal(t, string(src), readFile(t, book), "nothing written")
		last := srv.Requests()[len(srv.Requests())-1]
		require.Contains(t, string(last.Body), "call_denied", "the model reads the refusal")
	})
}

// TestAskStoppedAtItsTurnLimit: a protocol agent that reaches its turn
// limit (--max-steps) before it answers has not done what was asked: the
// command says so, writes nothing and exits 1.
func TestAskStoppedAtItsTurnLimit(t *testing.T) {
	s := loadAgentScenarios(t)["protocol-formal-intro"]
	r := s.Replies // the edit, then the same reply again and again: never an answer
	s.Replies = append([]json.RawMessage{r[0]}, slices.Repeat([]json.RawMessage{r[1]}, 6)...)
	srv := s.replay(t)
	book, src := s.world(t, srv)
	out, log, code := runAsk(t, book, s.Question, "--agent", s.Agent, "--yes", "--json", "--max-steps", "3")
	require.Equal(t, 1, code, log)
	var res struct {
		Written bool   `json:"written"`
		Error   string `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.False(t, res.Written)
	require.Contains(t, res.Error, "turn limit (3 turns)")
	require.Contains(t, log, "--max-steps")
	require.Equal(t, string(src), readFile(t, book), "nothing written")
}

// TestAskUnknownAgent: an unknown agent is a usage error naming the agents.
func TestAskUnknownAgent(t *testing.T) {
	s := loadAgentScenarios(t)["protocol-formal-intro"]
	book, _ := s.world(t, s.replay(t))
	_, log, code := runAsk(t, book, "hi", "--agent", "nobody")
	require.Equal(t, cli.ExitUsage, code)
	require.Contains(t, log, `unknown agent "nobody"`)
	require.Contains(t, log, "bookEditorProtocol")
	require.NotContains(t, log, "cursorAgent", "internal sub-agents are not listed")

	_, log, code = runAsk(t, book, "hi", "--agent", "demoPlanner", "--max-steps", "3")
	require.Equal(t, cli.ExitUsage, code, "--max-steps would have no effect")
	require.Contains(t, log, "--max-steps bounds the turns of a REACT or protocol agent; demoPlanner is PLAN_EXECUTE")
}

// TestSameEditsThroughTheCLIAndTheServer drives one scenario through
// `aite ask --agent` and through `aite serve` (POST /query, the approval
// answered through /submit): both make the same edits and leave the same
// book.
func TestSameEditsThroughTheCLIAndTheServer(t *testing.T) {
	for name, s := range loadAgentScenarios(t) {
		t.Run(name, func(t *testing.T) {
			book, _ := s.world(t, s.replay(t))
			out, log, code := runAsk(t, book, s.Question, "--agent", s.Agent, "--yes", "--json")
			require.Equal(t, 0, code, log)
			var res struct {
				Edits []cliEdit `json:"edits"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &res), out)
			require.Len(t, res.Edits, s.Edits)

			srv := s.replay(t)
			s.world(t, srv)
			api := serveInProcess(t)
			edits, markdown := queryServer(t, api, s)
			require.Equal(t, res.Edits, edits, "the same edits")
			require.Equal(t, readFile(t, book), markdown, "the same book")
		})
	}
}

func runAsk(t *testing.T, book string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(append([]string{"ask", book}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var apiRE = regexp.MustCompile(`http://\S+/api/ap`)

// serveInProcess runs `aite serve` (the sample book registered) until the
// test ends and returns its API base URL.
func serveInProcess(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- executeContext(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--log-level", "warn"},
			strings.NewReader(""), &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	var u string
	require.Eventually(t, func() bool { u = apiRE.FindString(stdout.String()); return u != "" }, 10*time.Second,
		5*time.Millisecond, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	return u
}

// queryServer runs the scenario as POST /query on the sample book,
// approving every edit approval through /submit; it returns the run's
// edits (document.edit) and the document's Markdown afterwards.
func queryServer(t *testing.T, api string, s agentScenario) ([]cliEdit, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	body, _ := json.Marshal(map[string]any{"message": s.Question, "agentKey": s.Agent})
	resp, err := client.Post(api+"/query", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var edits []cliEdit
	var runID, docID string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok || !strings.HasPrefix(strings.TrimSpace(data), "{") {
			continue
		}
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		switch ev["type"] {
		case "run.start":
			runID, _ = ev["runId"].(string)
		case "approval.request":
			submit := `{"runId":"` + runID + `","toolId":"` + ev["approvalId"].(string) + `","params":{"decision":"approve"}}`
			r, err := client.Post(api+"/submit", "application/json", strings.NewReader(submit))
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, r.Body)
			r.Body.Close()
		case "document.edit":
			docID, _ = ev["documentId"].(string)
			e := cliEdit{}
			e.Op, _ = ev["op"].(string)
			e.Pointer, _ = ev["pointer"].(string)
			e.NewPointer, _ = ev["newPointer"].(string)
			e.Before, _ = ev["before"].(string)
			e.After, _ = ev["after"].(string)
			edits = append(edits, e)
		case "run.error":
			t.Fatalf("the server's run failed: %s", data)
		}
		if ev["type"] == "run.complete" {
			break
		}
	}
	require.NotEmpty(t, docID, "the run edited a document")
	r, err := client.Get(api + "/document/raw?documentId=" + docID)
	require.NoError(t, err)
	defer r.Body.Close()
	var env struct {
		Data struct {
			Markdown string `json:"markdown"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(r.Body).Decode(&env))
	return edits, env.Data.Markdown
}

// TestChatAnyAgent: `aite chat --agent` runs the agent turn after turn; at
// a terminal, its questions are answered from the same input as the chat's
// commands (here: the command, "y" for the edit, then /save and /quit).
func TestChatAnyAgent(t *testing.T) {
	s := loadAgentScenarios(t)["protocol-formal-intro"]
	srv := s.replay(t)
	book, src := s.world(t, srv)
	m, err := cli.LoadModel("", "")
	require.NoError(t, err)
	var out, log bytes.Buffer
	in := strings.Join([]string{s.Question, "y", "/save", "/quit"}, "\n") + "\n"
	err = cli.Chat(context.Background(), cli.AskRequest{Book: book, Model: m, Agent: s.Agent, In: strings.NewReader(in),
		Out: &out, Log: &log, Interactive: true})
	require.NoError(t, err, log.String())
	require.Contains(t, log.String(), "agent bookEditorProtocol")
	require.Contains(t, log.String(), "Apply it? [y/N]")
	require.Contains(t, out.String(), "The paragraph 4:1.1.p1 is now formal.")
	require.Contains(t, log.String(), "wrote "+book)
	after := readFile(t, book)
	require.NotEqual(t, string(src), after)
	require.Contains(t, after, "мать Варвары")
}

// TestAskWithAnthropic: AITE_MODEL=anthropic:… runs the book editor on
// Anthropic's Messages API (a fake Anthropic server here): its tool call
// reads the book, its answer is printed.
func TestAskWithAnthropic(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.AnthropicCall("toolu_1", "editor-read", `{"pointer":"4:1.1.p1"}`),
		llmtest.AnthropicText(900, 12, "The first paragraph of chapter 1 ", "is 4:1.1.p1."))
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	book := filepath.Join(t.TempDir(), "book.md")
	require.NoError(t, os.WriteFile(book, src, 0o644))
	t.Setenv("AITE_MODEL", "anthropic:claude-test")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out, log, code := runAsk(t, book, "What is the first paragraph of chapter 1?")
	require.Equal(t, 0, code, log)
	require.Contains(t, out, "The first paragraph of chapter 1 is 4:1.1.p1.")
	require.Contains(t, log, "▸ editor-read")
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Equal(t, "/v1/messages", reqs[0].Path)
	require.Equal(t, "claude-test", reqs[0].JSON["model"])
	require.Contains(t, string(reqs[1].Body), `"tool_result"`, "the tool's result goes back as Anthropic's tool_result")
	require.Contains(t, string(reqs[1].Body), "Поезд из губернского города")
}
