package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/api"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/server/auth"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
	"github.com/aitexteditor/aite/internal/tool"
)

// chScript is what a chEngine run does with its emitter.
type chScript func(ctx context.Context, f *chEngine, spec agent.Spec, em *chEmitter) error

// chEmitter turns a script's calls into the run's events.
type chEmitter struct {
	yield   func(agent.Event, error) bool
	stopped bool
}

func (em *chEmitter) emit(ev agent.Event) {
	if !em.stopped && !em.yield(ev, nil) {
		em.stopped = true
	}
}

func (em *chEmitter) Content(d string) { em.emit(agent.Event{Type: agent.ContentDelta, Delta: d}) }
func (em *chEmitter) TurnEnd()         { em.emit(agent.Event{Type: agent.TurnEnd}) }
func (em *chEmitter) CallStart(c agent.Call) {
	em.emit(agent.Event{Type: agent.ToolStart, ToolID: c.ID, Call: &c})
}
func (em *chEmitter) CallArgs(id, d string) {
	em.emit(agent.Event{Type: agent.ToolArgs, ToolID: id, Delta: d})
}
func (em *chEmitter) Submit(id string, p json.RawMessage) {
	em.emit(agent.Event{Type: agent.Submitted, ToolID: id, Answer: p})
}
func (em *chEmitter) DocumentEdit(id string, e tool.Edit) {
	em.emit(agent.Event{Type: agent.DocumentEdit, ToolID: id, Edit: &e})
}
func (em *chEmitter) ToolResult(id, text string) {
	em.emit(agent.Event{Type: agent.ToolResult, ToolID: id, Result: &agent.Result{Text: text}})
}
func (em *chEmitter) PlanUpdate(id string, tasks []api.PlanTask) {
	plan := &agent.Plan{ID: id}
	for _, t := range tasks {
		plan.Tasks = append(plan.Tasks, agent.PlanTask{TaskID: t.TaskID, Description: t.Description, Status: t.Status})
	}
	em.emit(agent.Event{Type: agent.PlanUpdate, Plan: plan})
}
func (em *chEmitter) Complete(reason string) {
	em.emit(agent.Event{Type: agent.RunComplete, End: &agent.End{FinishReason: reason}})
}

// chEngine is the tests' Executor: Run records the spec and runs the
// script; a script asks people through the server's Waits (await).
type chEngine struct {
	script chScript
	st     store.Store  // the server's store, for scripts that store messages
	waits  *agent.Waits // the server's questions

	mu       sync.Mutex
	specs    []agent.Spec
	docs     []string    // the document each run was bound to (Options.Tools)
	subjects []string    // the subject of each run's context
	waiting  chan string // runId#toolId of each question awaited
}

func newChEngine(s chScript) *chEngine {
	return &chEngine{script: s, waits: &agent.Waits{}, waiting: make(chan string, 16)}
}

// Run implements Executor.
func (f *chEngine) Run(ctx context.Context, spec agent.Spec) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		f.mu.Lock()
		f.specs = append(f.specs, spec)
		f.mu.Unlock()
		em := &chEmitter{yield: yield}
		if err := f.script(ctx, f, spec, em); err != nil && !em.stopped {
			yield(agent.Event{}, err)
		}
	}
}

// await waits for the answer to the frontend call runID#toolID (opened
// when its tool.start went out) until ctx ends.
func (f *chEngine) await(ctx context.Context, runID, toolID string) (json.RawMessage, error) {
	f.waiting <- runID + "#" + toolID
	a, err := f.waits.Wait(ctx, agent.Question{RunID: runID, ID: toolID, Kind: agent.AskFrontend})
	return a.Raw, err
}

// bind is the server's Options.Tools: it records the run's document and
// the subject of its context.
func (f *chEngine) bind(ctx context.Context, _ *agent.Spec, docID string) error {
	sub, _ := auth.SubjectFrom(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.docs = append(f.docs, docID)
	f.subjects = append(f.subjects, sub)
	return nil
}

// lastDoc and lastSubject return the document and the subject of the
// latest run.
func (f *chEngine) lastDoc(t *testing.T) string {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.docs)
	return f.docs[len(f.docs)-1]
}

func (f *chEngine) lastSubject(t *testing.T) string {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.subjects)
	return f.subjects[len(f.subjects)-1]
}

// lastSpec returns the spec of the latest run.
func (f *chEngine) lastSpec(t *testing.T) agent.Spec {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.specs)
	return f.specs[len(f.specs)-1]
}

// chAnswer streams parts as content and completes.
func chAnswer(parts ...string) chScript {
	return func(_ context.Context, _ *chEngine, _ agent.Spec, em *chEmitter) error {
		for _, p := range parts {
			em.Content(p)
		}
		em.TurnEnd()
		em.Complete(api.FinishStop)
		return nil
	}
}

// chStall streams "Hi", waits for release (or the run's end), then
// streams "!" and completes.
func chStall(release <-chan struct{}) chScript {
	return func(ctx context.Context, _ *chEngine, _ agent.Spec, em *chEmitter) error {
		em.Content("Hi")
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		em.Content("!")
		em.TurnEnd()
		em.Complete(api.FinishStop)
		return nil
	}
}

// chAgentFiles are the agent files of the tests, keyed by file name.
var chAgentFiles = map[string]string{
	"alpha.json":      `{"key": "alpha", "name": "Alpha", "mode": "ONESHOT", "modelConfig": {"modelKey": "m1"}, "plain": {"systemPrompt": "a"}}`,
	"bookEditor.json": `{"key": "bookEditor", "name": "Book", "mode": "ONESHOT", "modelConfig": {"modelKey": "m1"}, "plain": {"systemPrompt": "b"}}`,
	"zeta.json":       `{"key": "zeta", "name": "Zeta", "mode": "ONESHOT", "modelConfig": {"modelKey": "m1"}, "plain": {"systemPrompt": "z"}}`,
}

// chLoadAgents loads agent files (name → content) from a temp dir.
func chLoadAgents(t *testing.T, files map[string]string) *agentdef.Snapshot {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	lookup := agentdef.ModelLookupFunc(func(key string) (models.Model, error) {
		return models.Model{Key: key, Provider: "openai", ModelID: key}, nil
	})
	snap, warnings := agentdef.Load(agentdef.Dirs{Agents: dir}, lookup, nil)
	require.Empty(t, warnings)
	require.Len(t, snap.Agents(), len(files))
	return snap
}

// chEnv is a server over a memory store, a real RunManager and a chEngine.
type chEnv struct {
	t    *testing.T
	st   store.Store
	runs *RunManager
	eng  *chEngine
	defs atomic.Pointer[agentdef.Snapshot]
	srv  *httptest.Server
	hc   *http.Client
}

// newChEnv starts a server whose runs execute s; opts adjust the Options
// and wrap wraps the handler (nil: none).
func newChEnv(t *testing.T, s chScript, wrap func(http.Handler) http.Handler, opts ...func(*Options)) *chEnv {
	t.Helper()
	return newChEnvOn(t, memory.New(), s, wrap, opts...)
}

// newChEnvOn is newChEnv over the store st.
func newChEnvOn(t *testing.T, st store.Store, s chScript, wrap func(http.Handler) http.Handler, opts ...func(*Options)) *chEnv {
	t.Helper()
	e := &chEnv{t: t, st: st, eng: newChEngine(s)}
	e.eng.st = e.st
	e.defs.Store(chLoadAgents(t, chAgentFiles))
	e.runs = NewRunManager(e.st, RunOptions{})
	o := Options{Store: e.st, Defs: e.defs.Load, Engine: e.eng, Waits: e.eng.waits, Tools: e.eng.bind, Runs: e.runs}
	for _, f := range opts {
		f(&o)
	}
	h := New(o).Handler()
	if wrap != nil {
		h = wrap(h)
	}
	e.srv = httptest.NewServer(h)
	e.hc = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, e.runs.Close(ctx))
		e.hc.CloseIdleConnections()
		e.srv.Close()
	})
	return e
}

// do sends a request; body "" sends none.
func (e *chEnv) do(ctx context.Context, method, path, body string, header http.Header) *http.Response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.srv.URL+path, rd)
	require.NoError(e.t, err)
	for k, v := range header {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := e.hc.Do(req)
	require.NoError(e.t, err)
	return resp
}

// chEnvelope is a decoded response envelope.
type chEnvelope struct {
	Code int             `json:"code"`
	Msg  string          `json:"msg"`
	Data json.RawMessage `json:"data"`
}

// call sends a request and decodes the envelope answer.
func (e *chEnv) call(method, path, body string) (int, chEnvelope) {
	e.t.Helper()
	resp := e.do(context.Background(), method, path, body, nil)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	require.Contains(e.t, resp.Header.Get("Content-Type"), "application/json", "body: %s", raw)
	var env chEnvelope
	require.NoError(e.t, json.Unmarshal(raw, &env), "body: %s", raw)
	require.Equal(e.t, resp.StatusCode, map[bool]int{true: 200, false: env.Code}[env.Code == 0], "code = status")
	return resp.StatusCode, env
}

// ok sends a request that must succeed and decodes data into v.
func (e *chEnv) ok(method, path, body string, v any) {
	e.t.Helper()
	status, env := e.call(method, path, body)
	require.Equal(e.t, http.StatusOK, status, "%s %s: %s %s", method, path, env.Msg, env.Data)
	require.Equal(e.t, api.MsgSuccess, env.Msg)
	if v != nil {
		require.NoError(e.t, json.Unmarshal(env.Data, v))
	}
}

// fail sends a request that must fail with status and msg; it returns data.
func (e *chEnv) fail(method, path, body string, status int, msg string) json.RawMessage {
	e.t.Helper()
	got, env := e.call(method, path, body)
	require.Equal(e.t, status, got, "%s %s: %s", method, path, env.Msg)
	require.Equal(e.t, status, env.Code)
	require.Equal(e.t, msg, env.Msg)
	return env.Data
}

// chFrame is one SSE frame as read.
type chFrame struct {
	raw   string // the bytes of the frame, blank line included
	id    string
	event string
	data  string
}

// ev decodes the frame's event.
func (f chFrame) ev(t *testing.T) chEvent {
	t.Helper()
	var w chEvent
	require.NoError(t, json.Unmarshal([]byte(f.data), &w), f.raw)
	w.Raw = f.data
	return w
}

// chEvent is an event as a client reads it.
type chEvent struct {
	Seq       int64  `json:"seq"`
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"`
	Raw       string `json:"-"`
}

// field returns one payload field of the event, decoded into v.
func (w chEvent) field(t *testing.T, name string, v any) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(w.Raw), &m))
	raw, ok := m[name]
	require.True(t, ok, "no %s in %s", name, w.Raw)
	require.NoError(t, json.Unmarshal(raw, v))
}

// chStream reads a streaming response incrementally.
type chStream struct {
	t      *testing.T
	resp   *http.Response
	br     *bufio.Reader
	cancel context.CancelFunc
}

// open sends a streaming request; the stream is closed at the test's end.
func (e *chEnv) open(method, path, body string, header http.Header) *chStream {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	resp := e.do(ctx, method, path, body, header)
	s := &chStream{t: e.t, resp: resp, br: bufio.NewReader(resp.Body), cancel: cancel}
	e.t.Cleanup(s.close)
	return s
}

// query posts a /query that must stream.
func (e *chEnv) query(body string) *chStream {
	e.t.Helper()
	s := e.open(http.MethodPost, "/api/ap/query", body, nil)
	require.Equal(e.t, http.StatusOK, s.resp.StatusCode)
	require.Equal(e.t, "text/event-stream; charset=utf-8", s.resp.Header.Get("Content-Type"))
	return s
}

// close drops the connection.
func (s *chStream) close() {
	s.cancel()
	_ = s.resp.Body.Close()
}

// next reads one frame; ok is false at the end of the stream.
func (s *chStream) next() (chFrame, bool) {
	s.t.Helper()
	var f chFrame
	for {
		line, err := s.br.ReadString('\n')
		f.raw += line
		if errors.Is(err, io.EOF) && line == "" && f.raw == "" {
			return f, false
		}
		require.NoError(s.t, err, "partial frame %q", f.raw)
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			return f, true
		case strings.HasPrefix(line, "id:"):
			f.id = strings.TrimPrefix(line, "id:")
		case strings.HasPrefix(line, "event:"):
			f.event = strings.TrimPrefix(line, "event:")
		case strings.HasPrefix(line, "data:"):
			f.data += strings.TrimPrefix(line, "data:")
		default:
			s.t.Fatalf("unexpected SSE line %q", line)
		}
	}
}

// event reads frames until the next event, skipping heartbeats.
func (s *chStream) event() chEvent {
	s.t.Helper()
	for {
		f, ok := s.next()
		require.True(s.t, ok, "the stream ended")
		if f.event == "heartbeat" {
			continue
		}
		return f.ev(s.t)
	}
}

// until reads events up to and including the first of type typ.
func (s *chStream) until(typ string) []chEvent {
	s.t.Helper()
	var out []chEvent
	for {
		e := s.event()
		out = append(out, e)
		if e.Type == typ {
			return out
		}
	}
}

// rest reads every remaining frame until the stream ends.
func (s *chStream) rest() []chFrame {
	s.t.Helper()
	var out []chFrame
	for {
		f, ok := s.next()
		if !ok {
			return out
		}
		out = append(out, f)
	}
}

// chEvents decodes the message frames (no heartbeat, no [DONE]).
func chEvents(t *testing.T, frames []chFrame) []chEvent {
	t.Helper()
	var out []chEvent
	for _, f := range frames {
		if f.event == "message" && f.data != "[DONE]" {
			out = append(out, f.ev(t))
		}
	}
	return out
}

// chTypes lists the event types.
func chTypes(evs []chEvent) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// chRunID returns the runId of a stream's run.start.
func chRunID(t *testing.T, evs []chEvent) string {
	t.Helper()
	for _, e := range evs {
		if e.Type == api.TypeRunStart {
			var id string
			e.field(t, "runId", &id)
			return id
		}
	}
	t.Fatal("no run.start")
	return ""
}

// waitIdle waits until no run is running.
func (e *chEnv) waitIdle() {
	e.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		var r *Run
		e.runs.mu.Lock()
		for _, r = range e.runs.runs {
			break
		}
		e.runs.mu.Unlock()
		if r == nil {
			return
		}
		select {
		case <-r.Done():
		case <-timeout:
			e.t.Fatal("runs still running")
		}
	}
}

// chatDetail fetches GET /chat.
func (e *chEnv) chatDetail(chatID, extra string) (ChatDetail, map[string]json.RawMessage, []chEvent) {
	e.t.Helper()
	var raw map[string]json.RawMessage
	e.ok(http.MethodGet, "/api/ap/chat?chatId="+chatID+extra, "", &raw)
	var d ChatDetail
	var evs []json.RawMessage
	require.NoError(e.t, json.Unmarshal(raw["events"], &evs))
	d.ChatID, d.ChatName = chStr(e.t, raw["chatId"]), chStr(e.t, raw["chatName"])
	var out []chEvent
	for _, ev := range evs {
		var w chEvent
		require.NoError(e.t, json.Unmarshal(ev, &w))
		w.Raw = string(ev)
		out = append(out, w)
	}
	return d, raw, out
}

// chStr decodes a JSON string.
func chStr(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

// chJSON returns v's JSON.
func chJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// chSeqIDs checks that ids equal seqs and run from first, step 1.
func chSeqIDs(t *testing.T, frames []chFrame, first int64) {
	t.Helper()
	want := first
	for _, f := range frames {
		if f.event != "message" || f.data == "[DONE]" {
			continue
		}
		e := f.ev(t)
		require.Equal(t, want, e.Seq, f.raw)
		require.Equal(t, strconv.FormatInt(e.Seq, 10), f.id, f.raw)
		want++
	}
}

// chNoSSE checks that a body has no SSE bytes.
func chNoSSE(t *testing.T, body []byte) {
	t.Helper()
	require.False(t, bytes.Contains(body, []byte("event:")), "SSE bytes in %s", body)
	require.False(t, bytes.Contains(body, []byte("data:")), "SSE bytes in %s", body)
}
