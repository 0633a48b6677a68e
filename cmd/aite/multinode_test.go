package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
)

// The lease of the nodes of TestMultiNode (cluster.leaseMs): a node that
// dies has its runs aborted within it plus a third.
const testLease = 2 * time.Second

// serveNode is one `aite serve` process of the test.
type serveNode struct {
	name string
	cmd  *exec.Cmd
	url  string // http://host:port/api/ap
	errs *lockedBuffer
	done chan struct{}
}

var serverLine = regexp.MustCompile(`aite server: (http://\S+/api/ap)`)

// startNode starts `aite serve` on dsn with a data directory of its own
// holding the test's agent (definitions are files on each node), a fake
// model at modelURL and the test lease; it returns once the node serves.
func startNode(t *testing.T, name, dsn, modelURL string) *serveNode {
	t.Helper()
	data := filepath.Join(t.TempDir(), name)
	agents := filepath.Join(data, "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	agent := `{"name": "Inserter", "mode": "REACT", "modelConfig": {"modelKey": "default"},
		"toolConfig": {"backends": ["editor-insert_after"]}, "react": {"systemPrompt": "Insert what you are told."}}`
	if err := os.WriteFile(filepath.Join(agents, "inserter.json"), []byte(agent), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "serve", "--store", dsn, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	cmd.Env = append(os.Environ(), execAsAite+"=1", "AITE_LEASE_MS="+strconv.Itoa(int(testLease.Milliseconds())),
		"AITE_NODE="+name, "AITE_MODEL=openai:fake-model", "OPENAI_BASE_URL="+modelURL+"/v1", "OPENAI_API_KEY=test",
		"AITE_CONFIG=", "AITE_STORE=", "AITE_DB=", "AITE_DATA=", "AITE_ADDR=")
	cmd.Dir = data
	n := &serveNode{name: name, cmd: cmd, errs: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = n.errs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(n.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-n.done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-n.done
		}
		if t.Failed() {
			t.Logf("node %s stderr:\n%s", name, n.errs.String())
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := serverLine.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	select {
	case n.url = <-urls:
	case <-n.done:
		t.Fatalf("node %s exited at start:\n%s", name, n.errs.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("node %s did not start:\n%s", name, n.errs.String())
	}
	return n
}

// post posts a JSON body and decodes the envelope's data into out.
func (n *serveNode) post(t *testing.T, path, body string, out any) {
	t.Helper()
	resp, err := http.Post(n.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	decodeEnvelope(t, resp, out)
}

// get decodes the envelope of GET path into out.
func (n *serveNode) get(t *testing.T, path string, out any) {
	t.Helper()
	resp, err := http.Get(n.url + path)
	if err != nil {
		t.Fatal(err)
	}
	decodeEnvelope(t, resp, out)
}

func decodeEnvelope(t *testing.T, resp *http.Response, out any) {
	t.Helper()
	defer resp.Body.Close()
	var env struct {
		Code int             `json:"code"`
		Msg  string          `json:"msg"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Code != 0 {
		t.Fatalf("%s %s: %d %s (%v)", resp.Request.Method, resp.Request.URL.Path, env.Code, env.Msg, err)
	}
	if out != nil {
		if err := json.Unmarshal(env.Data, out); err != nil {
			t.Fatal(err)
		}
	}
}

// sseEvent is one received SSE event: its frame as sent and its data.
type sseEvent struct {
	raw  string
	seq  int64
	typ  string
	data map[string]any
}

// readSSE reads the events of an SSE body, calling each for every event
// until it returns false or the body ends; heartbeats are skipped.
func readSSE(t *testing.T, body io.Reader, each func(sseEvent) bool) {
	t.Helper()
	br := bufio.NewReader(body)
	var frame strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		frame.WriteString(line)
		if line != "\n" {
			continue
		}
		raw := frame.String()
		frame.Reset()
		i := strings.Index(raw, "\ndata:")
		if i < 0 {
			continue // heartbeat
		}
		var data map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSuffix(raw[i+6:], "\n\n")), &data); err != nil {
			t.Errorf("bad event %q: %v", raw, err)
			return
		}
		seq, _ := data["seq"].(float64)
		typ, _ := data["type"].(string)
		if !each(sseEvent{raw: raw, seq: int64(seq), typ: typ, data: data}) {
			return
		}
	}
}

// query starts a run on n and returns its stream (positioned after
// run.start) with the run and chat ids.
func (n *serveNode) query(t *testing.T, body string) (resp *http.Response, runID, chatID string, head []sseEvent) {
	t.Helper()
	resp, err := http.Post(n.url+"/query", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("query on %s: %d %s", n.name, resp.StatusCode, b)
	}
	readSSE(t, resp.Body, func(e sseEvent) bool {
		head = append(head, e)
		if e.typ == "run.start" {
			runID, _ = e.data["runId"].(string)
			chatID, _ = e.data["chatId"].(string)
			return false
		}
		return true
	})
	if runID == "" {
		t.Fatalf("no run.start from %s: %+v", n.name, head)
	}
	return resp, runID, chatID, head
}

// follow opens GET /run/stream on n after lastEventID.
func (n *serveNode) follow(t *testing.T, runID string, lastEventID int64) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, n.url+"/run/stream?runId="+runID, nil)
	req.Header.Set("Last-Event-ID", strconv.FormatInt(lastEventID, 10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("follow on %s: %d", n.name, resp.StatusCode)
	}
	return resp
}

// nodeModel answers "Talk" with talkWords streamed words, 2 ms apart, and
// "Insert N" with a call of editor-insert_after, then "Done." once the
// tool result is in; anything else with a short text.
type nodeModel struct{}

const talkWords = 3000

var insertRE = regexp.MustCompile(`Insert (\d+)`)

func (nodeModel) reply(r llmtest.Request) llmtest.Response {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	var last string
	toolDone := false
	for _, m := range req.Messages {
		if m.Role == "tool" {
			toolDone = true
		}
		if m.Role == "user" {
			b, _ := json.Marshal(m.Content)
			last = string(b)
		}
	}
	switch m := insertRE.FindStringSubmatch(last); {
	case m != nil && toolDone:
		return llmtest.Response{Chunks: []string{llmtest.ContentChunk("Done."), llmtest.FinishChunk("stop")}}
	case m != nil:
		args := fmt.Sprintf(`{"pointer":"2","markdown":"Inserted paragraph %s."}`, m[1])
		return llmtest.Response{Chunks: []string{
			llmtest.ToolCallChunk(llmtest.ToolFrag{Index: 0, ID: "call_" + m[1], Name: "editor-insert_after", Args: args}),
			llmtest.FinishChunk("tool_calls")}}
	case strings.Contains(last, "Talk"):
		chunks := make([]string, 0, talkWords+1)
		for i := range talkWords {
			chunks = append(chunks, llmtest.ContentChunk(fmt.Sprintf("w%d ", i)))
		}
		return llmtest.Response{Chunks: append(chunks, llmtest.FinishChunk("stop")), Delay: 2 * time.Millisecond}
	}
	return llmtest.Response{Chunks: []string{llmtest.ContentChunk("Hello from the model."), llmtest.FinishChunk("stop")}}
}

// TestMultiNode runs three `aite serve` processes on one PostgreSQL
// database (issue 19): a chat created on A is listed on B; 50 edits of one
// document run at once through A and B and none is lost; a run on A is
// followed live from B, byte for byte as A sends it; A is killed with
// SIGKILL in the middle of a run that B and C follow, and within the lease
// (plus a third) they get its run.error run_aborted, the chat is free and
// B takes the next run.
func TestMultiNode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three server processes")
	}
	dsn := pgtest.DSN(t)
	model := nodeModel{}
	llm := llmtest.NewServerFunc(t, model.reply)
	a := startNode(t, "node-a", dsn, llm.URL)
	b := startNode(t, "node-b", dsn, llm.URL)
	c := startNode(t, "node-c", dsn, llm.URL)

	t.Run("a chat created on A is listed on B", func(t *testing.T) {
		resp, _, chatID, _ := a.query(t, `{"message":"Hi","agentKey":"demoOneshot"}`)
		readSSE(t, resp.Body, func(sseEvent) bool { return true })
		resp.Body.Close()
		var chats []struct {
			ChatID    string `json:"chatId"`
			LastRunID string `json:"lastRunId"`
		}
		b.get(t, "/chats", &chats)
		for _, ch := range chats {
			if ch.ChatID == chatID && ch.LastRunID != "" {
				return
			}
		}
		t.Fatalf("chat %s not listed on B: %+v", chatID, chats)
	})

	t.Run("50 parallel edits through A and B", func(t *testing.T) {
		var doc struct {
			DocumentID string `json:"documentId"`
		}
		a.post(t, "/documents", `{"name":"shared","markdown":"# Shared\n\nFirst paragraph.\n"}`, &doc)
		var wg sync.WaitGroup
		for i := range 50 {
			n := []*serveNode{a, b}[i%2]
			wg.Go(func() {
				body := fmt.Sprintf(`{"message":"Insert %d","agentKey":"inserter","params":{"documentId":%q}}`, i, doc.DocumentID)
				resp, err := http.Post(n.url+"/query", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				var last string
				readSSE(t, resp.Body, func(e sseEvent) bool { last = e.typ; return true })
				if last != "run.complete" {
					t.Errorf("edit %d on %s ended with %q", i, n.name, last)
				}
			})
		}
		wg.Wait()
		var hist struct {
			Edits []struct {
				Revision int    `json:"revision"`
				After    string `json:"after"`
			} `json:"edits"`
		}
		c.get(t, "/document/history?documentId="+doc.DocumentID, &hist)
		if len(hist.Edits) != 50 {
			t.Fatalf("%d edits in the history, want 50", len(hist.Edits))
		}
		for i, e := range hist.Edits {
			if e.Revision != i+1 {
				t.Fatalf("edit %d has revision %d: the history is not contiguous", i, e.Revision)
			}
		}
		var raw struct {
			Revision int    `json:"revision"`
			Markdown string `json:"markdown"`
		}
		b.get(t, "/document/raw?documentId="+doc.DocumentID, &raw)
		if raw.Revision != 50 {
			t.Fatalf("revision %d, want 50", raw.Revision)
		}
		for i := range 50 {
			if want := fmt.Sprintf("Inserted paragraph %d.", i); !strings.Contains(raw.Markdown, want) {
				t.Errorf("edit %d was lost", i)
			}
		}
	})

	t.Run("a run on A followed live from B", func(t *testing.T) {
		resp, runID, _, head := a.query(t, `{"message":"Talk","agentKey":"demoOneshot"}`)
		defer resp.Body.Close()
		onB := b.follow(t, runID, 0)
		defer onB.Body.Close()
		var fromA, fromB []sseEvent
		var aDeltas atomic.Int64 // deltas A's client has received
		var wg sync.WaitGroup
		wg.Go(func() {
			fromA = head
			readSSE(t, resp.Body, func(e sseEvent) bool {
				if e.typ == "content.delta" {
					aDeltas.Add(1)
				}
				fromA = append(fromA, e)
				return true
			})
		})
		liveAt := int64(-1)
		readSSE(t, onB.Body, func(e sseEvent) bool {
			if liveAt < 0 && e.typ == "content.delta" {
				liveAt = aDeltas.Load()
			}
			fromB = append(fromB, e)
			return true
		})
		wg.Wait()
		if liveAt < 0 || liveAt >= talkWords/2 {
			t.Fatalf("B's first delta came when A's client had %d of %d: not live", liveAt, talkWords)
		}
		if len(fromB) != len(fromA) || fromB[len(fromB)-1].typ != "run.complete" {
			t.Fatalf("A sent %d events, B %d (last %q)", len(fromA), len(fromB), fromB[len(fromB)-1].typ)
		}
		for i := range fromA {
			if fromA[i].raw != fromB[i].raw {
				t.Fatalf("event %d differs:\nA %sB %s", i, fromA[i].raw, fromB[i].raw)
			}
		}
	})

	t.Run("A killed mid-run: B and C abort it within the lease", func(t *testing.T) {
		resp, runID, chatID, _ := a.query(t, `{"message":"Talk","agentKey":"demoOneshot"}`)
		defer resp.Body.Close()
		onB, onC := b.follow(t, runID, 0), c.follow(t, runID, 0)
		defer onB.Body.Close()
		defer onC.Body.Close()
		var killedAt time.Time
		var seen []sseEvent
		deltas := 0
		readSSE(t, onB.Body, func(e sseEvent) bool {
			seen = append(seen, e)
			if e.typ == "content.delta" {
				deltas++
			}
			if deltas == 100 && killedAt.IsZero() {
				if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				killedAt = time.Now()
			}
			return true
		})
		took := time.Since(killedAt)
		<-a.done
		last := seen[len(seen)-1]
		if last.typ != "run.error" || !strings.Contains(last.raw, `"code":"run_aborted"`) {
			t.Fatalf("B's stream ended with %s", last.raw)
		}
		if took > testLease+testLease/3+2*time.Second {
			t.Errorf("aborted %v after the kill; the lease is %v", took, testLease)
		}
		for i, e := range seen {
			if e.seq != int64(i+1) {
				t.Fatalf("B got seq %d at position %d", e.seq, i)
			}
		}
		var onCEvents []sseEvent
		readSSE(t, onC.Body, func(e sseEvent) bool { onCEvents = append(onCEvents, e); return true })
		if len(onCEvents) != len(seen) || onCEvents[len(onCEvents)-1].raw != last.raw {
			t.Fatalf("C got %d events, B %d", len(onCEvents), len(seen))
		}
		var detail struct {
			ActiveRunID string `json:"activeRunId"`
		}
		c.get(t, "/chat?chatId="+chatID, &detail)
		if detail.ActiveRunID != "" {
			t.Fatalf("the chat is still busy with %s", detail.ActiveRunID)
		}
		next, _, _, _ := b.query(t, `{"message":"Hi again","chatId":"`+chatID+`"}`)
		readSSE(t, next.Body, func(sseEvent) bool { return true })
		next.Body.Close()
		t.Logf("failover: node A killed after %d deltas; B and C got run.error run_aborted %v later (lease %v)",
			deltas, took.Round(time.Millisecond), testLease)
	})
}
