package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aitexteditor/aite/examples"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/server/config"
)

// appEnv is an injectable environment for the app's model configuration.
type appEnv map[string]string

func (e appEnv) get(k string) string { return e[k] }

// appRunning is an app serving on a loopback port.
type appRunning struct {
	app    *App
	base   string             // http://127.0.0.1:port
	cancel context.CancelFunc // starts the shutdown
	stop   func()             // cancels Serve and waits for it (fails the test on an error)
}

// appStart builds an app on dataDir (port 0) with env and serves it.
func appStart(t *testing.T, dataDir string, env appEnv) *appRunning {
	t.Helper()
	return appStartWith(t, dataDir, env, nil)
}

// appStartWith is appStart with configuration flags.
func appStartWith(t *testing.T, dataDir string, env appEnv, flags map[string]string) *appRunning {
	t.Helper()
	all := map[string]string{"server.addr": "127.0.0.1:0", "data": dataDir}
	maps.Copy(all, flags)
	cfg, err := config.Load(config.Options{WorkDir: dataDir, Env: appEnv{}.get, Flags: all})
	require.NoError(t, err)
	app, err := NewApp(context.Background(), cfg, AppOptions{Env: env.get, WorkDir: dataDir, SampleName: examples.SampleName, Sample: examples.Zvezdochkin,
		WatchInterval: 5 * time.Millisecond, WatchDebounce: 20 * time.Millisecond, ShutdownTimeout: 5 * time.Second})
	require.NoError(t, err)
	ln, err := app.Listen()
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, ln) }()
	r := &appRunning{app: app, base: "http://" + ln.Addr().String(), cancel: cancel}
	var stopped bool
	r.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after cancel")
		}
	}
	t.Cleanup(r.stop)
	return r
}

// appLeakCheck fails the test if goroutines outlive it (registered first,
// so it runs after the other cleanups).
func appLeakCheck(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// appClient makes requests without keeping connections (no goroutines
// outlive a test).
var appClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// appGet decodes the data of a GET envelope into out.
func appGet(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := appClient.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var env struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	require.Equal(t, 0, env.Code)
	require.NoError(t, json.Unmarshal(env.Data, out))
}

type appAgent struct {
	Key  string `json:"key"`
	Meta struct {
		Model string   `json:"model"`
		Mode  string   `json:"mode"`
		Tools []string `json:"tools"`
	} `json:"meta"`
}

func appAgents(t *testing.T, r *appRunning) map[string]appAgent {
	t.Helper()
	var list []appAgent
	appGet(t, r.base+"/api/ap/agents", &list)
	out := map[string]appAgent{}
	for _, a := range list {
		out[a.Key] = a
	}
	return out
}

type appDocument struct {
	DocumentID string `json:"documentId"`
	Name       string `json:"name"`
	ItemCount  int    `json:"itemCount"`
	SizeBytes  int    `json:"sizeBytes"`
}

// appQuery posts a query and returns the event types and the last event.
func appQuery(t *testing.T, r *appRunning, body string) (types []string, last map[string]any) {
	t.Helper()
	return appQueryFunc(t, r, body, nil)
}

// appQueryFunc is appQuery calling each, when not nil, after every event.
func appQueryFunc(t *testing.T, r *appRunning, body string, each func(ev map[string]any)) (types []string, last map[string]any) {
	t.Helper()
	resp, err := appClient.Post(r.base+"/api/ap/query", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok || strings.TrimSpace(data) == "[DONE]" {
			continue
		}
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		types = append(types, ev["type"].(string))
		last = ev
		if each != nil {
			each(ev)
		}
	}
	return types, last
}

func TestAppStartsOnDefaults(t *testing.T) {
	appLeakCheck(t)
	dir := t.TempDir()
	r := appStart(t, dir, nil)

	agents := appAgents(t, r)
	for _, key := range []string{"bookEditor", "demoOneshot", "demoReact", "demoPlanner", "demoAction", "demoConfirm", "demoSkill"} {
		require.Contains(t, agents, key)
	}
	require.Contains(t, agents, "bookEditorProtocol")
	for _, internal := range []string{"cursorAgent", "paragraphEditor"} {
		require.NotContains(t, agents, internal, "an internal sub-agent is not listed")
	}
	require.Equal(t, "REACT", agents["bookEditor"].Meta.Mode)
	require.Contains(t, agents["bookEditor"].Meta.Tools, "editor-replace_text")

	var docs []appDocument
	appGet(t, r.base+"/api/ap/documents", &docs)
	require.Len(t, docs, 1)
	require.Equal(t, examples.SampleName, docs[0].Name)
	require.Equal(t, len(examples.Zvezdochkin), docs[0].SizeBytes)
	require.Positive(t, docs[0].ItemCount)

	// Everything lives under the data directory.
	for _, p := range []string{"aite.db", "agents/bookEditor.json", "tools/confirm.frontend", "viewports/confirm.html",
		"skills/text-stats/SKILL.md", "models/gpt-4o-mini.json", "data"} {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		require.NoError(t, err, p)
	}

	// Without a model a run fails with a model_error that says what to do.
	types, last := appQuery(t, r, `{"message": "hello", "agentKey": "demoOneshot"}`)
	require.Equal(t, "run.error", types[len(types)-1], "%v", types)
	errInfo := last["error"].(map[string]any)
	require.Equal(t, "model_error", errInfo["code"])
	require.Contains(t, errInfo["message"], "AITE_MODEL=openai:gpt-4o-mini")

	r.stop()
}

func TestAppRunsWithConfiguredModel(t *testing.T) {
	appLeakCheck(t)
	srv := llmtest.NewServer(t, llmtest.Response{Chunks: []string{llmtest.ContentChunk("Hello from the fake model."), llmtest.FinishChunk("stop")}})
	r := appStart(t, t.TempDir(), appEnv{"AITE_MODEL": "vllm:tiny", "AITE_VLLM_BASE_URL": srv.URL + "/v1"})
	require.Equal(t, "tiny", appAgents(t, r)["demoOneshot"].Meta.Model)

	types, last := appQuery(t, r, `{"message": "hello", "agentKey": "demoOneshot"}`)
	require.Equal(t, "run.complete", types[len(types)-1], "%v %v", types, last)
	require.Contains(t, types, "content.delta")
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "tiny", reqs[0].JSON["model"])
	r.stop()
	srv.CloseClientConnections()
}

// TestAppBookEditorOnSample runs the default agent on the sample book: its
// book tools are bound to the selected document.
func TestAppBookEditorOnSample(t *testing.T) {
	appLeakCheck(t)
	srv := llmtest.NewServer(t,
		llmtest.Response{Chunks: []string{
			llmtest.ToolCallChunk(llmtest.ToolFrag{ID: "call_1", Name: "search-find", Args: `{"query": "Варя", "mode": "exact"}`}),
			llmtest.FinishChunk("tool_calls")}},
		llmtest.Response{Chunks: []string{llmtest.ContentChunk("Found her."), llmtest.FinishChunk("stop")}})
	r := appStart(t, t.TempDir(), appEnv{"AITE_MODEL": "vllm:tiny", "AITE_VLLM_BASE_URL": srv.URL + "/v1"})
	var docs []appDocument
	appGet(t, r.base+"/api/ap/documents", &docs)
	var result string
	types, last := appQueryFunc(t, r, `{"message": "Где Варя?", "params": {"documentId": "`+docs[0].DocumentID+`"}}`,
		func(ev map[string]any) {
			if ev["type"] == "tool.result" {
				result, _ = ev["result"].(string)
			}
		})
	require.Equal(t, "run.complete", last["type"], "%v %v", types, last)
	require.Contains(t, result, "Варя", "the search ran on the sample book")
	require.NotContains(t, result, `"ok":false`)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	r.stop()
	srv.CloseClientConnections()
}

// TestAppShutdownEndsWaitingRun stops the server while a run waits for a
// frontend submit: the run ends with run_aborted and Serve returns at once
// (not after the 300 s submit timeout).
func TestAppShutdownEndsWaitingRun(t *testing.T) {
	appLeakCheck(t)
	srv := llmtest.NewServer(t, llmtest.Response{Chunks: []string{
		llmtest.ToolCallChunk(llmtest.ToolFrag{ID: "call_1", Name: "confirm", Args: `{"question": "Book it?"}`}),
		llmtest.FinishChunk("tool_calls")}})
	r := appStart(t, t.TempDir(), appEnv{"AITE_MODEL": "vllm:tiny", "AITE_VLLM_BASE_URL": srv.URL + "/v1"})
	types, last := appQueryFunc(t, r, `{"message": "book a table", "agentKey": "demoConfirm"}`, func(ev map[string]any) {
		if ev["type"] == "tool.end" {
			r.cancel() // the run now waits for /submit
		}
	})
	require.Contains(t, types, "tool.start")
	require.Equal(t, "run.error", last["type"], "%v", types)
	require.Equal(t, "run_aborted", last["error"].(map[string]any)["code"])
	r.stop()
	srv.CloseClientConnections()
}

func TestAppHotReload(t *testing.T) {
	appLeakCheck(t)
	dir := t.TempDir()
	r := appStart(t, dir, nil)
	require.Equal(t, "default", appAgents(t, r)["demoOneshot"].Meta.Model, "no model configured: the key is shown")

	// A new agent file appears without a restart.
	agent := `{"key": "mine", "name": "Mine", "mode": "ONESHOT", "modelConfig": {"modelKey": "default"},
		"plain": {"systemPrompt": "Be brief."}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agents", "mine.json"), []byte(agent), 0o644))
	require.Eventually(t, func() bool { _, ok := appAgents(t, r)["mine"]; return ok }, 5*time.Second, 10*time.Millisecond)

	// A models change reloads the models, then the agents.
	model := `{"key": "default", "provider": "ollama", "modelId": "qwen3:8b"}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "models", "default.json"), []byte(model), 0o644))
	require.Eventually(t, func() bool { return appAgents(t, r)["demoOneshot"].Meta.Model == "qwen3:8b" },
		5*time.Second, 10*time.Millisecond)
	r.stop()
}

func TestAppRestartKeepsData(t *testing.T) {
	appLeakCheck(t)
	dir := t.TempDir()
	r := appStart(t, dir, nil)
	var first []appDocument
	appGet(t, r.base+"/api/ap/documents", &first)
	r.stop()

	// A changed built-in is restored; the sample book is not registered twice.
	book := filepath.Join(dir, "agents", "bookEditor.json")
	require.NoError(t, os.WriteFile(book, []byte("{}"), 0o644))
	r = appStart(t, dir, nil)
	var again []appDocument
	appGet(t, r.base+"/api/ap/documents", &again)
	require.Equal(t, first, again)
	require.Contains(t, appAgents(t, r), "bookEditor")
	r.stop()
}

func TestAppConfigErrors(t *testing.T) {
	dir := t.TempDir()
	cfg, err := config.Load(config.Options{WorkDir: dir, Env: appEnv{}.get})
	require.NoError(t, err)
	cfg.Storage.SQLitePath = filepath.Join(dir, "aite.db", "nested.db") // its parent will be a file
	require.NoError(t, os.WriteFile(filepath.Join(dir, "aite.db"), nil, 0o644))
	_, err = NewApp(context.Background(), cfg, AppOptions{Env: appEnv{}.get, WorkDir: dir})
	require.Error(t, err)

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"providers": {"x": {"baseUrl": 5}}}`), 0o644))
	cfg, err = config.Load(config.Options{WorkDir: dir, ConfigPath: bad, Env: appEnv{}.get,
		Flags: map[string]string{"data": filepath.Join(dir, "d2")}})
	require.NoError(t, err, "the model keys are llm/models' business")
	_, err = NewApp(context.Background(), cfg, AppOptions{Env: appEnv{}.get, WorkDir: dir})
	require.ErrorContains(t, err, "providers.x")
	require.ErrorContains(t, err, "bad.json")
}

func TestAppListenError(t *testing.T) {
	dir := t.TempDir()
	r := appStart(t, dir, nil)
	cfg, err := config.Load(config.Options{WorkDir: dir, Env: appEnv{}.get,
		Flags: map[string]string{"server.addr": strings.TrimPrefix(r.base, "http://"), "data": filepath.Join(dir, "other")}})
	require.NoError(t, err)
	app, err := NewApp(context.Background(), cfg, AppOptions{Env: appEnv{}.get, WorkDir: dir})
	require.NoError(t, err)
	err = app.ListenAndServe(context.Background())
	require.ErrorContains(t, err, "listen")
	require.NoError(t, app.Close(context.Background()), "Close after a failed start is harmless")
	resp, err := appClient.Get(r.base + "/api/ap/agents")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// TestAppCursorAgentTasksPersist: the cursor agent of a server run keeps
// its task state in the store (ARCHITECTURE "Storage": cursor-agent task
// states), under the task id its progress reports.
func TestAppCursorAgentTasksPersist(t *testing.T) {
	appLeakCheck(t)
	turn := 0
	var mu sync.Mutex
	srv := llmtest.NewServerFunc(t, func(req llmtest.Request) llmtest.Response {
		if req.JSON["response_format"] != nil { // the cursor agent: nothing in this batch
			return llmtest.Response{Chunks: []string{llmtest.ContentChunk(`{"action":"continue","batchFound":false,` +
				`"newEvidence":[],"progress":"","needMoreContext":false,"contextPointers":[]}`), llmtest.FinishChunk("stop")}}
		}
		mu.Lock()
		defer mu.Unlock()
		turn++
		switch turn {
		case 1:
			return llmtest.Response{Chunks: []string{llmtest.ToolCallChunk(llmtest.ToolFrag{ID: "call_1",
				Name: "cursor-create_keyword_cursor", Args: `{"keywords":["Варя"]}`}), llmtest.FinishChunk("tool_calls")}}
		case 2:
			return llmtest.Response{Chunks: []string{llmtest.ToolCallChunk(llmtest.ToolFrag{ID: "call_2",
				Name: "cursor_agent-run_cursor_agent", Args: `{"cursorName":"kwd_cursor_0","taskDescription":"a green scarf"}`}),
				llmtest.FinishChunk("tool_calls")}}
		}
		return llmtest.Response{Chunks: []string{llmtest.ContentChunk("Not found."), llmtest.FinishChunk("stop")}}
	})
	r := appStart(t, t.TempDir(), appEnv{"AITE_MODEL": "openai:tiny", "OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "k"})
	var taskID string
	types, last := appQueryFunc(t, r, `{"message": "Where is the green scarf?"}`, func(ev map[string]any) {
		if data, ok := ev["data"].(map[string]any); ok && ev["type"] == "tool.progress" {
			taskID, _ = data["taskId"].(string)
		}
	})
	require.Equal(t, "run.complete", last["type"], "%v %v", types, last)
	require.NotEmpty(t, taskID, "the cursor agent reported its task")
	st, err := r.app.store.LoadTask(context.Background(), taskID)
	require.NoError(t, err, "the task state is in the store")
	require.Contains(t, string(st.Body), `"goal":"a green scarf"`)
	require.Contains(t, string(st.Body), `"stoppedBy":"cursor_complete"`)
	r.stop()
	srv.CloseClientConnections()
}
