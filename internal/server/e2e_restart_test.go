package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/store"
)

// killChildEnv names the directory of the child server of
// TestKillAndRestart (its database); the child writes its URL to fd 3 and
// serves until it is killed.
const killChildEnv = "AITE_TEST_KILL_CHILD_DIR"

// TestKillChildServer is the child process of TestKillAndRestart; it does
// nothing in a normal test run.
func TestKillChildServer(t *testing.T) {
	dir := os.Getenv(killChildEnv)
	if dir == "" {
		t.Skip("the child server of TestKillAndRestart")
	}
	h := newHarness(t, harnessOptions{dbPath: filepath.Join(dir, "aite.db")})
	h.llm.SetHandler(func(llmtest.Request) llmtest.Response {
		parts := make([]string, 2000)
		for i := range parts {
			parts[i] = "word "
		}
		r := text(parts...)
		r.Delay = 2 * time.Millisecond
		return r
	})
	out := os.NewFile(3, "url") // the parent reads the URL from its end of the pipe
	if _, err := io.WriteString(out, h.srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	select {} // until SIGKILL
}

// TestKillAndRestart kills the server process (SIGKILL) in the middle of a
// streaming run, right after the client received an event, then starts a
// new server on the same database: every event the client received is
// stored exactly as it was sent (durable before sent, issue 14), a reattach
// with the client's Last-Event-ID gets only later seqs and ends with the
// run's terminal event, run.error run_aborted (whose seq the client never
// saw), the chat is listed, and /chat shows the run up to the last stored
// event followed by run.error run_aborted (§ 3.6, issue #7 item 5).
func TestKillAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChildServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd.ExtraFiles = []*os.File{pw} // fd 3 of the child: its URL
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	b, _ := io.ReadAll(pr) // until the child closes its end (or dies)
	url := string(b)
	if url == "" {
		t.Fatal("the child server did not start")
	}
	resp, err := httpPost(url+"/api/ap/query", `{"message":"Talk for a while","agentKey":"plain"}`)
	if err != nil {
		t.Fatal(err)
	}
	deltas := 0
	seen := readFrames(t, resp.Body, func(f frame) bool {
		if f.typ() == "content.delta" {
			deltas++
		}
		if deltas == 50 { // kill at once, before returning from the callback
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
		return deltas < 50
	})
	_ = cmd.Wait()
	killed = true
	resp.Body.Close()
	runID, _ := seen[2].data["runId"].(string)
	chatID, _ := seen[2].data["chatId"].(string)
	if seen[2].typ() != "run.start" || runID == "" {
		t.Fatalf("third event %v", seen[2].data)
	}

	h := newHarness(t, harnessOptions{dbPath: filepath.Join(dir, "aite.db"), recover: true})
	stored, err := h.st.ListEvents(context.Background(), runID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) < len(seen)+1 {
		t.Fatalf("%d events stored, the client had seen %d before the kill", len(stored), len(seen))
	}
	for i, f := range seen {
		line := f.raw[strings.Index(f.raw, "data:")+5 : len(f.raw)-2]
		if string(stored[i].Body) != line {
			t.Errorf("stored event %d differs from the one sent:\n%s\n%s", i+1, stored[i].Body, line)
		}
	}
	last := stored[len(stored)-1]
	if last.Type != "run.error" || !strings.Contains(string(last.Body), `"code":"run_aborted"`) {
		t.Errorf("last stored event %s %s, want run.error run_aborted", last.Type, last.Body)
	}
	// The client reattaches with the last id it saw: later seqs only, up to
	// the terminal event.
	seenLast := frameSeq(seen[len(seen)-1])
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/api/ap/run/stream?runId="+runID, nil)
	req.Header.Set("Last-Event-ID", strconv.FormatInt(seenLast, 10))
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rest := readFrames(t, again.Body, nil)
	again.Body.Close()
	if len(rest) == 0 || rest[len(rest)-1].typ() != "run.error" {
		t.Fatalf("the reattach after the kill ends without the terminal event: %d events", len(rest))
	}
	for _, f := range rest {
		if frameSeq(f) <= seenLast {
			t.Errorf("the reattach after Last-Event-ID %d sent seq %d again", seenLast, frameSeq(f))
		}
	}
	run, err := h.st.GetRun(context.Background(), runID)
	if err != nil || run.Status != store.RunError || run.ErrorCode != "run_aborted" {
		t.Errorf("run after restart: %+v %v", run, err)
	}

	_, chats := h.get("/api/ap/chats")
	list, _ := chats["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["chatId"] != chatID || list[0].(map[string]any)["lastRunId"] != runID {
		t.Fatalf("/chats after restart: %v", chats)
	}
	_, detail := h.get("/api/ap/chat?chatId=" + chatID)
	data, _ := detail["data"].(map[string]any)
	events, _ := data["events"].([]any)
	var kinds []string
	var text string
	for _, e := range events {
		m := e.(map[string]any)
		kinds = append(kinds, m["type"].(string))
		if m["type"] == "content.snapshot" {
			text, _ = m["text"].(string)
		}
	}
	want := []string{"request.query", "chat.start", "run.start", "content.snapshot", "run.error"}
	if strings.Join(kinds, " ") != strings.Join(want, " ") || strings.Count(text, "word ") < 10 {
		t.Errorf("/chat after restart: %v, text %q", kinds, text)
	}
	if _, ok := data["activeRunId"]; ok {
		t.Errorf("an aborted run is still active: %v", data["activeRunId"])
	}
	b, _ = json.Marshal(list[0])
	t.Logf("chat after restart: %s; %d of the run's events were stored before the kill", b, len(stored)-1)
}

// httpPost posts a JSON body.
func httpPost(url, body string) (*http.Response, error) {
	return http.Post(url, "application/json", strings.NewReader(body))
}

// frameSeq is the seq of an event frame.
func frameSeq(f frame) int64 {
	n, _ := f.data["seq"].(float64)
	return int64(n)
}
