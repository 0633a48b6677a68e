package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aitexteditor/aite/internal/agent"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/llm/openai"
	"github.com/aitexteditor/aite/internal/server"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/sqlite"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/bookprotocol"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// The end-to-end harness: the real server (handlers, run manager, engine,
// documents, SQLite) in front of the fake OpenAI-compatible HTTP server, read
// by a real HTTP client.

// fakeModels resolves every model key to one adapter: the fake server's,
// or one pointed at another URL. jsonSchema declares the model
// json_schema-capable (protocol agents then ask for response_format
// json_schema and read the solution from the content).
type fakeModels struct {
	p          llm.Provider
	jsonSchema bool
}

func newFakeModels(srv *llmtest.Server, url string) fakeModels {
	if url == "" {
		return fakeModels{p: srv.Provider(openai.Config{MaxRetries: -1})}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000}}
	return fakeModels{p: openai.New(openai.Config{BaseURL: url, MaxRetries: -1, HTTPClient: client})}
}

func (f fakeModels) Provider(key string) (llm.Provider, models.Model, error) {
	m, _ := f.Model(key)
	return f.p, m, nil
}

func (f fakeModels) Model(key string) (models.Model, error) {
	return models.Model{Key: key, Provider: "fake", ModelID: "fake-model", SupportsJSONSchema: f.jsonSchema}, nil
}

// upperTool is the REACT demo's backend tool.
type upperArgs struct {
	Text string `json:"text" jsonschema:"the text to upper-case"`
}

func upperTool() tool.Tool {
	return tool.Must("upper", "Upper-cases a text.", func(_ context.Context, p upperArgs) (tool.Result, error) {
		return tool.Result{Text: strings.ToUpper(p.Text)}, nil
	})
}

type harnessOptions struct {
	heartbeat       time.Duration
	stall           time.Duration // sse.stallTimeoutMs
	frontendTimeout time.Duration
	files           map[string]string // definition files below the definitions root
	modelURL        string            // the models' endpoint instead of the harness's fake server
	dbPath          string            // an existing database to open ("" = a new one)
	store           store.Store       // the store to use instead of a SQLite file (closed by the caller)
	book            []byte            // the document the harness creates (default testBook)
	recover         bool              // mark runs left running as aborted before serving
	// tools are extra Go backend tools (next to upper and the book tools).
	tools []tool.Tool
	// contextProviders resolve protocol.context provider entries.
	contextProviders map[string]agent.ContextProvider
	// protocolBook wires the protocol book editor as the App does: the
	// bookprotocol activities bound to the run's document
	// (server.ProtocolActivities) and the reference-card providers
	// (server.ProtocolContextProviders); files should then hold
	// bookProtocolDefinitions.
	protocolBook bool
	// jsonSchema declares the fake model json_schema-capable.
	jsonSchema bool
	// activityGate, when set, runs before every protocol book activity
	// (protocolBook): a test orders parallel calls with it.
	activityGate func(ctx context.Context, call *protocol.Call)
}

type harness struct {
	t     testing.TB
	llm   *llmtest.Server
	srv   *httptest.Server
	st    store.Store
	runs  *server.RunManager
	docs  *server.Documents
	defs  *agentdef.Snapshot
	docID string
	// closed receives a value each time the server closes a connection.
	closed chan struct{}
}

// testDefinitions are the agents of the end-to-end tests.
var testDefinitions = map[string]string{
	"agents/plain.json": `{"name": "Plain", "mode": "ONESHOT", "modelConfig": {"modelKey": "fake"},
		"plain": {"systemPrompt": "Answer briefly."}}`,
	"agents/react.json": `{"name": "React", "mode": "REACT", "modelConfig": {"modelKey": "fake"},
		"toolConfig": {"backends": ["upper"]}, "react": {"systemPrompt": "Use tools."}}`,
	"agents/planner.json": `{"name": "Planner", "mode": "PLAN_EXECUTE", "modelConfig": {"modelKey": "fake"},
		"toolConfig": {"backends": ["upper"]},
		"planExecute": {"plan": {"systemPrompt": "Plan."}, "execute": {"systemPrompt": "Execute."}, "summary": {"systemPrompt": "Summarise."}}}`,
	"agents/actor.json": `{"name": "Actor", "mode": "REACT", "modelConfig": {"modelKey": "fake"},
		"toolConfig": {"actions": ["highlight"]}, "react": {"systemPrompt": "Highlight."}}`,
	"agents/confirmer.json": `{"name": "Confirmer", "mode": "REACT", "modelConfig": {"modelKey": "fake"},
		"toolConfig": {"frontends": ["confirm"]}, "react": {"systemPrompt": "Ask first."}}`,
	"agents/editor.json": `{"key": "bookEditor", "name": "Book editor", "mode": "REACT", "modelConfig": {"modelKey": "fake"},
		"toolConfig": {"backends": ["cursor-create_keyword_cursor", "cursor-read_cursor_batch", "editor-read", "editor-replace_text"]},
		"react": {"systemPrompt": "Edit the book."}}`,
	"tools/highlight.action": `{"tools": [{"type": "function", "name": "highlight", "description": "Highlights a block.",
		"parameters": {"type": "object", "properties": {"pointer": {"type": "string"}}, "required": ["pointer"]}}]}`,
	"tools/confirm.frontend": `{"tools": [{"type": "function", "name": "confirm", "description": "Asks the user to confirm.",
		"parameters": {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}}]}`,
	"viewports/confirm.html": `<!doctype html><button>OK</button>`,
}

// testBook is the document of the editing scenario.
const testBook = "# Глава первая\n\nПрофессор Звёздочкин вошёл в класс.\n\n— Тише, — сказал Звездочкин.\n\n## Вечер\n\nВаря читала.\n"

func newHarness(t testing.TB, opts harnessOptions) *harness {
	t.Helper()
	h := &harness{t: t, llm: llmtest.NewServer(t)}
	root := t.TempDir()
	dirs := agentdef.Dirs{Agents: filepath.Join(root, "agents"), Tools: filepath.Join(root, "tools"),
		Skills: filepath.Join(root, "skills"), Viewports: filepath.Join(root, "viewports"), Models: filepath.Join(root, "models")}
	files := opts.files
	if files == nil {
		files = testDefinitions
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	backends := map[string]bool{"upper": true}
	for _, bt := range booktools.Tools(booktools.Env{}) {
		backends[bt.Name()] = true
	}
	for _, et := range opts.tools {
		backends[et.Name()] = true
	}
	if opts.protocolBook {
		for _, n := range bookprotocol.ActivityNames() {
			backends[n] = true
		}
	}
	fm := newFakeModels(h.llm, opts.modelURL)
	fm.jsonSchema = opts.jsonSchema
	defs, warns := agentdef.Load(dirs, fm, backends)
	for _, w := range warns {
		if w.Rejected {
			t.Fatalf("definition rejected: %s", w)
		}
	}
	h.defs = defs

	dbPath := opts.dbPath
	if dbPath == "" {
		dbPath = filepath.Join(root, "aite.db")
	}
	var st store.Store = opts.store
	if st == nil {
		sq, err := sqlite.Open(dbPath)
		if err != nil {
			t.Fatal(err)
		}
		st = sq
	}
	h.st = st
	h.runs = server.NewRunManager(st, server.RunOptions{})
	if opts.recover {
		if err := h.runs.RecoverInterrupted(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	h.docs = server.NewDocuments(st, time.Now)
	book := opts.book
	if book == nil {
		book = []byte(testBook)
	}
	doc, err := h.docs.Create(context.Background(), "Звёздочкин", book, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	h.docID = doc.ID
	ft := opts.frontendTimeout
	if ft == 0 {
		ft = 5 * time.Second
	}
	waits := &agent.Waits{}
	eng := &agent.Runner{Memory: st, Models: fm, Waiter: waits, FrontendTimeout: ft}
	bind := func(ctx context.Context, spec *agent.Spec, docID string) error {
		spec.Tools = map[string]tool.Tool{"upper": upperTool()}
		for _, et := range opts.tools {
			spec.Tools[et.Name()] = et
		}
		spec.Context = maps.Clone(opts.contextProviders)
		if docID != "" {
			bt, err := h.docs.BookTools(ctx, docID, spec.RunID, nil)
			if err != nil {
				return err
			}
			maps.Copy(spec.Tools, bt)
		}
		if !opts.protocolBook {
			return nil
		}
		acts, err := server.ProtocolActivities(ctx, h.docs, spec.RunID, docID)
		if err != nil {
			return err
		}
		if gate := opts.activityGate; gate != nil {
			acts = gateActivities(acts, gate)
		}
		spec.Activities = acts
		spec.Context = server.ProtocolContextProviders(h.docs, docID)
		maps.Copy(spec.Context, opts.contextProviders)
		return nil
	}
	srv := server.New(server.Options{Store: st, Defs: func() *agentdef.Snapshot { return defs }, Engine: eng, Waits: waits, Tools: bind,
		Runs: h.runs, Documents: h.docs, Heartbeat: opts.heartbeat, Stall: opts.stall, DefaultAgent: "bookEditor"})
	h.closed = make(chan struct{}, 16)
	h.srv = httptest.NewUnstartedServer(srv.Handler())
	h.srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateClosed {
			select {
			case h.closed <- struct{}{}:
			default:
			}
		}
	}
	h.srv.Start()
	t.Cleanup(func() {
		h.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.runs.Close(ctx)
		_ = st.Close()
	})
	return h
}

// gateActivities wraps the activities of acts so that gate runs before
// each call; a previewing activity stays one (protocol.Previewer).
func gateActivities(acts map[string]protocol.Activity, gate func(context.Context, *protocol.Call)) map[string]protocol.Activity {
	out := make(map[string]protocol.Activity, len(acts))
	for name, act := range acts {
		g := &gatedActivity{act: act, gate: gate}
		if pv, ok := act.(protocol.Previewer); ok {
			out[name] = &gatedPreviewer{gatedActivity: g, pv: pv}
			continue
		}
		out[name] = g
	}
	return out
}

type gatedActivity struct {
	act  protocol.Activity
	gate func(context.Context, *protocol.Call)
}

func (g *gatedActivity) Run(ctx context.Context, call *protocol.Call, t *protocol.Tool, scoped protocol.Scoped) (protocol.Result, error) {
	g.gate(ctx, call)
	return g.act.Run(ctx, call, t, scoped)
}

type gatedPreviewer struct {
	*gatedActivity
	pv protocol.Previewer
}

func (g *gatedPreviewer) Preview(ctx context.Context, call *protocol.Call, t *protocol.Tool, scoped protocol.Scoped) (any, error) {
	return g.pv.Preview(ctx, call, t, scoped)
}

// frame is one SSE frame as received.
type frame struct {
	raw   string         // the frame's bytes, blank line included
	event string         // "message" or "heartbeat"
	data  map[string]any // the decoded data line (nil for heartbeats)
}

func (f frame) typ() string {
	if f.data == nil {
		return f.event
	}
	s, _ := f.data["type"].(string)
	return s
}

// readFrames reads SSE frames from body, calling each (when not nil) as they
// arrive, until a terminal event or the end of the body.
func readFrames(t testing.TB, body io.Reader, each func(frame) bool) []frame {
	t.Helper()
	var out []frame
	br := bufio.NewReader(body)
	var cur strings.Builder
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			cur.WriteString(line)
		}
		if line == "\n" {
			f := parseFrame(t, cur.String())
			cur.Reset()
			out = append(out, f)
			if each != nil && !each(f) {
				return out
			}
			if ty := f.typ(); ty == "run.complete" || ty == "run.error" {
				return out
			}
		}
		if err != nil {
			return out
		}
	}
}

func parseFrame(t testing.TB, raw string) frame {
	t.Helper()
	f := frame{raw: raw}
	for _, line := range strings.Split(strings.TrimSuffix(raw, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "event:"):
			f.event = strings.TrimPrefix(line, "event:")
		case strings.HasPrefix(line, "data:"):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data:")), &f.data); err != nil {
				t.Fatalf("data line is not JSON: %q", line)
			}
		}
	}
	return f
}

// query posts a /query and returns the response (the caller reads it).
func (h *harness) query(body string) *http.Response {
	h.t.Helper()
	resp, err := http.Post(h.srv.URL+"/api/ap/query", "application/json", strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

// run posts a query and reads its whole stream.
func (h *harness) run(body string, each func(frame) bool) []frame {
	h.t.Helper()
	resp := h.query(body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		h.t.Fatalf("query: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return readFrames(h.t, resp.Body, each)
}

// postJSON posts body to path and decodes the envelope.
func (h *harness) postJSON(path, body string) (int, map[string]any) {
	h.t.Helper()
	resp, err := http.Post(h.srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var env map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, env
}

// get fetches path and decodes the envelope.
func (h *harness) get(path string) (int, map[string]any) {
	h.t.Helper()
	resp, err := http.Get(h.srv.URL + path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var env map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, env
}

var (
	timestampRE = regexp.MustCompile(`"timestamp":\d+`)
	taskIDRE    = regexp.MustCompile(`"(taskId|taskName)":"([0-9a-f]{8})"`)
)

// masked renders frames for a golden file: the runId, chatId and
// documentId become RUN, CHAT and DOC, timestamps 0 and task ids TASK1….
func (h *harness) masked(frames []frame) string {
	var runIDs, chatID string
	var b strings.Builder
	for _, f := range frames {
		if f.typ() == "run.start" {
			runIDs, _ = f.data["runId"].(string)
			chatID, _ = f.data["chatId"].(string)
		}
		if f.typ() == "request.query" && chatID == "" {
			chatID, _ = f.data["chatId"].(string)
		}
	}
	// Task ids: numbered in order of appearance in taskId fields, then
	// replaced everywhere (tool arguments and results name them too).
	var taskIDs []string
	for _, f := range frames {
		for _, m := range taskIDRE.FindAllStringSubmatch(f.raw, -1) {
			if !slices.Contains(taskIDs, m[2]) {
				taskIDs = append(taskIDs, m[2])
			}
		}
	}
	for _, f := range frames {
		s := f.raw
		if runIDs != "" {
			s = strings.ReplaceAll(s, runIDs, "RUN")
		}
		if chatID != "" {
			s = strings.ReplaceAll(s, chatID, "CHAT")
		}
		s = strings.ReplaceAll(s, h.docID, "DOC")
		s = timestampRE.ReplaceAllString(s, `"timestamp":0`)
		for i, id := range taskIDs {
			s = strings.ReplaceAll(s, id, fmt.Sprintf("TASK%d", i+1))
		}
		b.WriteString(s)
	}
	return b.String()
}

// golden compares got with testdata/e2e/<name>.golden (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "e2e", name+".golden")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, []byte(got)) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// checkStream asserts the invariants every stream must keep (rows 17, 18,
// 30, 35): frame layout, seq = id from 1 step 1, at most one open text
// block, one end per call and exactly one result per start.
func checkStream(t *testing.T, frames []frame, firstSeq int) {
	t.Helper()
	seq := firstSeq
	open := ""
	starts, ends, results := map[string]int{}, map[string]int{}, map[string]int{}
	for _, f := range frames {
		if f.event == "heartbeat" {
			if f.raw != "event:heartbeat\n\n" {
				t.Errorf("heartbeat frame %q", f.raw)
			}
			continue
		}
		want := fmt.Sprintf("id:%d\nevent:message\ndata:{\"seq\":%d,\"type\":%q,\"timestamp\":", seq, seq, f.typ())
		if !strings.HasPrefix(f.raw, want) || strings.Count(f.raw, "\n") != 4 {
			t.Errorf("frame %d is not laid out as § 3.1 says: %q", seq, f.raw)
		}
		seq++
		ty := f.typ()
		switch ty {
		case "reasoning.start", "content.start":
			if open != "" {
				t.Errorf("%s while %s is open", ty, open)
			}
			open = ty
		case "reasoning.end", "content.end":
			open = ""
		case "reasoning.delta", "content.delta":
			if open == "" {
				t.Errorf("%s without an open block", ty)
			}
		}
		id, _ := f.data["toolId"].(string)
		if a, ok := f.data["actionId"].(string); ok {
			id = a
		}
		switch ty {
		case "tool.start", "action.start":
			starts[id]++
		case "tool.end", "action.end":
			ends[id]++
		case "tool.result", "action.result":
			results[id]++
			if ty == "tool.result" {
				if _, ok := f.data["result"].(string); !ok {
					t.Errorf("tool.result of %s is not a string", id)
				}
			}
		}
	}
	for id, n := range starts {
		if n != 1 || ends[id] != 1 || results[id] != 1 {
			t.Errorf("call %s: %d starts, %d ends, %d results", id, n, ends[id], results[id])
		}
	}
	for id := range results {
		if starts[id] == 0 {
			t.Errorf("result for %s without a start", id)
		}
	}
}

// types lists the frames' event types.
func types(frames []frame) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = f.typ()
	}
	return out
}
