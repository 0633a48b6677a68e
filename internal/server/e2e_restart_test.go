package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/store"
)

// killChildEnv names the directory of the child server of
// TestKillAndRestart; the child writes its URL there and serves until it
// is killed.
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
		parts := make([]string, 200)
		for i := range parts {
			parts[i] = "word "
		}
		r := text(parts...)
		r.Delay = 20 * time.Millisecond
		return r
	})
	if err := os.WriteFile(filepath.Join(dir, "url.tmp"), []byte(h.srv.URL), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "url.tmp"), filepath.Join(dir, "url")); err != nil {
		t.Fatal(err)
	}
	select {} // until SIGKILL
}

// TestKillAndRestart kills the server process (SIGKILL) in the middle of a
// streaming run, then starts a new server on the same database: it lists
// the chat, /chat shows the run up to the last persisted event followed by
// run.error run_aborted, and every event a client received at least one
// flush interval before the kill is stored exactly as it was sent (§ 3.6,
// issue #7 item 5).
func TestKillAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChildServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	var url string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "url")); err == nil {
			url = string(b)
			break
		}
	}
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
		return deltas < 10
	})
	time.Sleep(150 * time.Millisecond) // > the 20 ms flush interval: what was seen is stored
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
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
	b, _ := json.Marshal(list[0])
	t.Logf("chat after restart: %s; %d of the run's events were stored before the kill", b, len(stored)-1)
}

// httpPost posts a JSON body.
func httpPost(url, body string) (*http.Response, error) {
	return http.Post(url, "application/json", strings.NewReader(body))
}
