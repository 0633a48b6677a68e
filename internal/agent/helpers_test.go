package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/memory"
	"github.com/aitexteditor/aite/internal/tool"
)

// recorder records a run's events as strings, in order.
type recorder struct {
	waits  *Waits // questions are opened here (optional)
	runID  string
	mu     sync.Mutex
	events []string
	calls  map[string]Call
	info   *ErrorInfo
	plans  [][]PlanTask
	ledger *protocol.Ledger
	ended  bool
	// outOfSteps is the End's OutOfSteps of a completed run.
	outOfSteps bool
}

func newRecorder() *recorder { return &recorder{calls: map[string]Call{}} }

// recorder returns a recorder of run s that opens its questions in e's
// Waits, as the server does.
func (e *env) recorder(s Spec) *recorder {
	r := newRecorder()
	r.waits, r.runID = e.waits, s.RunID
	return r
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

// drain records every event of a run; it returns the error a run yields
// before it starts. Like the server, it opens the questions the events
// show before recording them (Waits.Open) and closes the run's questions
// at its end.
func (r *recorder) drain(seq iter.Seq2[Event, error]) error {
	defer func() {
		if r.waits != nil {
			r.waits.Close(r.runID)
		}
	}()
	for ev, err := range seq {
		if err != nil {
			return err
		}
		if r.waits != nil {
			r.waits.Open(r.runID, ev)
		}
		r.take(ev)
	}
	return nil
}

// take records one event.
func (r *recorder) take(ev Event) {
	switch ev.Type {
	case ReasoningDelta:
		r.add("reasoning:%s", ev.Delta)
	case ContentDelta:
		r.add("content:%s", ev.Delta)
	case ToolStart:
		r.mu.Lock()
		r.calls[ev.Call.ID] = *ev.Call
		r.mu.Unlock()
		r.add("start:%s:%s:%s", ev.Call.ID, ev.Call.Name, ev.Call.Kind)
	case ToolArgs:
		r.add("args:%s:%s", ev.ToolID, ev.Delta)
	case ToolEnd:
		r.add("end:%s", ev.ToolID)
	case TurnEnd:
		r.add("turn")
	case Submitted:
		r.add("submit:%s:%s", ev.ToolID, ev.Answer)
	case DocumentEdit:
		r.add("edit:%s:%s:%s:%d", ev.ToolID, ev.Edit.Op, ev.Edit.Pointer, ev.Edit.Revision)
	case ToolProgress:
		r.add("progress:%s:%s:%s", ev.ToolID, ev.Progress.Kind, ev.Progress.Message)
	case ToolResult:
		r.mu.Lock()
		kind := r.calls[ev.ToolID].Kind
		r.mu.Unlock()
		if kind == CallAction {
			r.add("action:%s:%s", ev.ToolID, ev.Result.Text)
		} else {
			r.add("result:%s:%s", ev.ToolID, ev.Result.Text)
		}
	case TaskStart:
		r.add("task.start:%s:%s", ev.Task.ID, ev.Task.Description)
	case TaskEnd:
		r.taskEnd(ev.Task)
	case PlanUpdate:
		r.mu.Lock()
		r.plans = append(r.plans, ev.Plan.Tasks)
		r.mu.Unlock()
		r.add("plan:%s:%d", ev.Plan.ID, len(ev.Plan.Tasks))
	case AdvisorSnapshot:
		o := ev.Opinion
		r.add("advisor:%s:%s%s:%s:%s", o.ID, o.Instance, consulted(o.Consulted), weightsJSON(o.Weights), ev.ParentToolID)
	case ScopeRequest:
		q := ev.Scope
		r.add("scope.request:%s:%s:%s:%v:%v:%s", q.ToolID, q.Tool, ScopeApprovalPrefix+q.ToolID, nonNil(q.Provisioned),
			nonNil(q.Requested), q.ParentToolID)
	case ScopeDecision:
		d := ev.ScopeDecision
		r.add("scope.decision:%s:%s:%v:%s:%s:%s", ev.ToolID, d.Verdict, nonNil(d.Scopes), d.By, d.Reason, ev.ParentToolID)
	case ApprovalRequest:
		a := ev.Approval
		var calls []string
		for _, c := range a.Calls {
			preview := string(c.Preview)
			if preview == "" {
				preview = "null"
			}
			calls = append(calls, c.ToolID+"="+c.ToolName+"@"+c.Instance+string(c.Params)+"~"+preview)
		}
		r.add("approval.request:%s:%d:%d:%v:%s", a.ID, a.Turn, a.Timeout.Milliseconds(), calls, a.ParentToolID)
	case ApprovalDecision:
		d := ev.Decision
		r.add("approval.decision:%s:%s:%v:%v:%s:%s:%s", ev.Approval.ID, d.Verdict, d.Approved, d.Denied, d.By, d.Reason,
			ev.Approval.ParentToolID)
	case RunComplete:
		r.complete(ev.End)
	case RunError:
		r.add("fail:%s", ev.End.Error.Code)
		r.mu.Lock()
		r.info, r.ended = ev.End.Error, true
		r.mu.Unlock()
	}
}

func (r *recorder) taskEnd(t *Task) {
	switch t.Status {
	case TaskCompleted:
		r.add("task.complete:%s", t.ID)
	case TaskCanceled:
		r.add("task.cancel:%s", t.ID)
	default:
		r.add("task.fail:%s:%s", t.ID, t.Error.Code)
	}
}

func (r *recorder) complete(end *End) {
	if end.Ledger != nil {
		r.add("complete:%s:%s", end.FinishReason, end.Ledger.Cap)
	} else {
		r.add("complete:%s", end.FinishReason)
	}
	r.mu.Lock()
	r.ledger, r.ended, r.outOfSteps = end.Ledger, true, end.OutOfSteps
	r.mu.Unlock()
}

// weightsJSON is the JSON object {tool: weight} of an opinion's votes.
func weightsJSON(ws []protocol.Weight) string {
	obj := &agentctx.Object{}
	for _, w := range ws {
		obj.Set(w.Tool, json.Number(strconv.FormatFloat(w.Value, 'f', -1, 64)))
	}
	return encodeObject(obj)
}

func consulted(b bool) string {
	if b {
		return ":consulted"
	}
	return ""
}

func (r *recorder) Ended() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

// list returns the recorded events.
func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// filter returns the events starting with one of the prefixes.
func (r *recorder) filter(prefixes ...string) []string {
	var out []string
	for _, e := range r.list() {
		for _, p := range prefixes {
			if strings.HasPrefix(e, p) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// last returns the last recorded event.
func (r *recorder) last() string {
	l := r.list()
	if len(l) == 0 {
		return ""
	}
	return l[len(l)-1]
}

// requireTerminal checks that exactly one terminal event was emitted, last.
func (r *recorder) requireTerminal(t *testing.T, want string) {
	t.Helper()
	terms := r.filter("complete:", "fail:")
	require.Equal(t, []string{want}, terms, "events: %q", r.list())
	require.Equal(t, want, r.last())
}

// fakeModels resolves model keys to scripted providers.
type fakeModels struct {
	mu sync.Mutex
	p  map[string]llm.Provider
}

func (f *fakeModels) Provider(key string) (llm.Provider, models.Model, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.p[key]
	if !ok {
		return nil, models.Model{}, fmt.Errorf("unknown model %q", key)
	}
	return p, models.Model{Key: key, Provider: "test", ModelID: "id-" + key}, nil
}

// lookup is the agentdef ModelLookup of the test models m1 and m2.
var lookup = agentdef.ModelLookupFunc(func(key string) (models.Model, error) {
	if key == "m1" || key == "m2" {
		return models.Model{Key: key, Provider: "test", ModelID: "id-" + key}, nil
	}
	return models.Model{}, fmt.Errorf("%w %q", models.ErrUnknownModel, key)
})

// fnTool is a Go backend tool backed by a function.
type fnTool struct {
	name string
	mu   sync.Mutex
	n    int               // calls so far
	args []json.RawMessage // arguments received
	fn   func(ctx context.Context, n int, args json.RawMessage) (tool.Result, error)
}

func (f *fnTool) Name() string                { return f.name }
func (f *fnTool) Description() string         { return "Go tool " + f.name + "." }
func (f *fnTool) Parameters() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f *fnTool) Call(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	f.mu.Lock()
	f.n++
	n := f.n
	f.args = append(f.args, append(json.RawMessage(nil), args...))
	f.mu.Unlock()
	return f.fn(ctx, n, args)
}

func (f *fnTool) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

func (f *fnTool) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, a := range f.args {
		out = append(out, string(a))
	}
	return out
}

// env is a loaded definition set with an engine over a memory store.
type env struct {
	t      *testing.T
	snap   *agentdef.Snapshot
	st     *memory.Store
	eng    *Runner
	waits  *Waits
	models *fakeModels
	tools  map[string]*fnTool
	// toolsFor, activities and context go into every Spec (see spec).
	toolsFor   func() map[string]tool.Tool
	activities map[string]protocol.Activity
	context    map[string]ContextProvider
	chatID     string
	runs       int
}

// backendNames are the Go backend tools the loader knows.
var backendNames = map[string]bool{"echo": true, "flaky": true, "slow": true, "badargs": true, "editor": true,
	"today": true, "boom": true, SkillRunScript: true}

// newEnv writes the definition files (path below the root → content) and
// loads them; every agent must load without rejection.
func newEnv(t *testing.T, files map[string]string) *env {
	t.Helper()
	root := t.TempDir()
	dirs := agentdef.Dirs{Agents: filepath.Join(root, "agents"), Tools: filepath.Join(root, "tools"),
		Skills: filepath.Join(root, "skills"), Viewports: filepath.Join(root, "viewports")}
	for _, d := range []string{dirs.Agents, dirs.Tools, dirs.Skills, dirs.Viewports} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(p, []byte(content), mode))
	}
	snap, warnings := agentdef.Load(dirs, lookup, backendNames)
	for _, w := range warnings {
		require.False(t, w.Rejected, "rejected: %s", w)
		require.NotContains(t, w.Reason, "unknown tool", "%s", w)
	}
	e := &env{t: t, snap: snap, st: memory.New(), models: &fakeModels{p: map[string]llm.Provider{}},
		tools: defaultTools(), chatID: "c0ffee00-0000-4000-8000-000000000001"}
	e.waits = &Waits{}
	e.eng = &Runner{Memory: e.st, Models: e.models, Waiter: e.waits, FrontendTimeout: time.Second}
	require.NoError(t, e.st.CreateChat(context.Background(), store.Chat{ID: e.chatID, Name: "test", AgentKey: "a",
		CreatedAt: time.Now(), UpdatedAt: time.Now()}))
	return e
}

// defaultTools are the Go tools of the tests.
func defaultTools() map[string]*fnTool {
	return map[string]*fnTool{
		"echo": {name: "echo", fn: func(_ context.Context, _ int, args json.RawMessage) (tool.Result, error) {
			return tool.Result{Text: "echo:" + string(args)}, nil
		}},
		"today": {name: "today", fn: func(context.Context, int, json.RawMessage) (tool.Result, error) {
			return tool.Result{Text: `{"date":"2024-01-31","at":"2024-02-28T10:00:00Z","n":5,"list":[{"x":"y"}]}`}, nil
		}},
		"editor": {name: "editor", fn: func(ctx context.Context, _ int, _ json.RawMessage) (tool.Result, error) {
			return tool.Result{Text: "edited " + CallID(ctx), Edits: []tool.Edit{
				{Book: "doc1", Op: "replace", Pointer: "3:1.p1", NewPointer: "3:1.p1", Revision: 1},
				{Book: "doc1", Op: "delete", Pointer: "4:1.p2", Revision: 2}}}, nil
		}},
	}
}

// provide sets the provider of model m1 (and m2 when given).
func (e *env) provide(p ...llm.Provider) {
	e.models.mu.Lock()
	defer e.models.mu.Unlock()
	e.models.p["m1"] = p[0]
	if len(p) > 1 {
		e.models.p["m2"] = p[1]
	}
}

// spec returns the spec of a new run of agent key, with its run row.
func (e *env) spec(key, message string) Spec {
	e.t.Helper()
	a, ok := e.snap.Agent(key)
	require.True(e.t, ok, "agent %q not loaded", key)
	e.runs++
	id := fmt.Sprintf("run%04d", e.runs)
	require.NoError(e.t, e.st.CreateRun(context.Background(), store.Run{ID: id, ChatID: e.chatID, AgentKey: key,
		Status: store.RunRunning, StartedAt: time.Now()}))
	return Spec{RunID: id, ChatID: e.chatID, RequestID: id, Agent: a, Defs: e.snap, Message: message,
		Tools: e.goTools(), Activities: e.activities, Context: e.context}
}

// goTools are the run's Go tools: e.toolsFor when set, else e.tools.
func (e *env) goTools() map[string]tool.Tool {
	if e.toolsFor != nil {
		return e.toolsFor()
	}
	out := map[string]tool.Tool{}
	for k, v := range e.tools {
		out[k] = v
	}
	return out
}

// run executes a new run of agent key and returns its events.
func (e *env) run(key, message string) (*recorder, Spec) {
	e.t.Helper()
	s := e.spec(key, message)
	rec := e.recorder(s)
	require.NoError(e.t, rec.drain(e.eng.Run(context.Background(), s)))
	return rec, s
}

// messages returns the stored message bodies of a run, decoded.
func (e *env) messages(runID string) []map[string]any {
	e.t.Helper()
	msgs, err := e.st.ListMessages(context.Background(), runID)
	require.NoError(e.t, err)
	var out []map[string]any
	for _, m := range msgs {
		var v map[string]any
		require.NoError(e.t, json.Unmarshal(m.Body, &v))
		v["@stage"], v["@task"], v["@msgId"] = m.Stage, m.TaskID, m.MsgID
		out = append(out, v)
	}
	return out
}

// oneshot returns a ONESHOT agent file; more is added to the top level.
func oneshot(more string) string {
	return `{"name": "One", "mode": "ONESHOT", "modelConfig": {"modelKey": "m1"},
		"plain": {"systemPrompt": "You answer."}` + comma(more) + `}`
}

// react returns a REACT agent file.
func react(more string) string {
	return `{"name": "Re", "mode": "REACT", "modelConfig": {"modelKey": "m1"},
		"react": {"systemPrompt": "You act.", "maxSteps": 3}` + comma(more) + `}`
}

// planExec returns a PLAN_EXECUTE agent file.
func planExec(plan, more string) string {
	return `{"name": "Pe", "mode": "PLAN_EXECUTE", "modelConfig": {"modelKey": "m1"},
		"planExecute": {"plan": {"systemPrompt": "You plan."` + comma(plan) + `},
			"execute": {"systemPrompt": "You execute."}, "summary": {"systemPrompt": "You summarise."}}` + comma(more) + `}`
}

func comma(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

// call is a tool call with an id.
func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// toolMsgs returns the tool messages of a request as "id=content".
func toolMsgs(req *llm.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m.ToolCallID+"="+m.Content)
		}
	}
	return out
}

// toolNames returns the names of a request's tools.
func toolNames(req *llm.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// errJSON is the § 7.1 error result text.
func errJSON(name, code, text string) string { return errorText(name, code, text) }

// scripted is a shorthand for llmtest.NewScripted.
func scripted(replies ...llmtest.Reply) *llmtest.Scripted { return llmtest.NewScripted(replies...) }

// Polling bounds of the asynchronous tests.
const (
	waitLong = 5 * time.Second
	tick     = time.Millisecond
)

// runAsync executes a new run of agent "a" in a goroutine, calls wait,
// cancels the run's context and returns its events once Execute returned.
func (e *env) runAsync(wait func()) *recorder {
	e.t.Helper()
	s := e.spec("a", "go")
	rec := e.recorder(s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- rec.drain(e.eng.Run(ctx, s)) }()
	wait()
	cancel()
	select {
	case err := <-done:
		require.NoError(e.t, err)
	case <-time.After(waitLong):
		e.t.Fatal("Execute did not return after cancel")
	}
	return rec
}

// pending reports whether the question runID#id waits for its answer.
func (e *env) pending(runID, id string) bool {
	_, ok := e.waits.Pending(runID, id)
	return ok
}

// submit answers the pending question runID#id with params as a client
// would post them (the server parses them; this is a lenient stand-in that
// fills what the server's parser fills: all scopes or calls for approve,
// by user). It reports whether a question was pending.
func (e *env) submit(runID, id, params string) bool {
	e.t.Helper()
	q, ok := e.waits.Pending(runID, id)
	if !ok {
		return false
	}
	a := Answer{Raw: json.RawMessage(params)}
	switch q.Kind {
	case AskScope:
		var d protocol.ScopeDecision
		require.NoError(e.t, json.Unmarshal([]byte(params), &d))
		if d.Verdict == protocol.VerdictApprove {
			d.Scopes = slices.Clone(q.Scope.Requested)
		}
		d.By = protocol.ByUser
		a.Scope = &d
	case AskApproval:
		var d protocol.ConfirmDecision
		require.NoError(e.t, json.Unmarshal([]byte(params), &d))
		if d.Verdict == protocol.VerdictApprove {
			d.Approved = nil
			for _, c := range q.Approval.Calls {
				d.Approved = append(d.Approved, c.ToolID)
			}
		}
		d.By = protocol.ByUser
		a.Approval = &d
	}
	return e.waits.Answer(runID, id, a)
}
