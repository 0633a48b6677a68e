package protocol

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

// The runtime test harness (§7): a fake model keyed by agent (each test
// agent has its own model key) and by the agent's request count, fake
// activities that record what they got, and a recording sink.

// rtModel answers one request of an agent; n is the 1-based number of the
// request among that agent's requests.
type rtModel func(req *llm.Request, n int) llmtest.Reply

// rtDispatch is one recorded activity dispatch.
type rtDispatch struct {
	ToolID   string
	Tool     string // the tool called
	Activity string // the activity that ran
	Kind     ExecKind
	Instance string
	Scoped   []string // kinds of the scoped view, in order
	Args     string   // compact JSON of the (resolved) parameters
	View     []agentctx.Message
}

type rtHarness struct {
	t        testing.TB
	rt       *Runtime
	provider *llmtest.Scripted

	mu         sync.Mutex
	models     map[string]rtModel
	counts     map[string]int
	events     []Event
	dispatches []rtDispatch
	agents     map[string]*Agent
	activities map[string]Activity
	tools      map[string]ToolDecl
}

// rtDate is the harness clock: every write is stamped with it.
var rtDate = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

func newHarness(t testing.TB) *rtHarness {
	h := &rtHarness{
		t: t, models: map[string]rtModel{}, counts: map[string]int{},
		agents: map[string]*Agent{}, activities: map[string]Activity{}, tools: map[string]ToolDecl{},
	}
	h.provider = llmtest.ScriptedFunc(func(req *llm.Request) llmtest.Reply {
		h.mu.Lock()
		m := h.models[req.Model]
		h.counts[req.Model]++
		n := h.counts[req.Model]
		h.mu.Unlock()
		if m == nil {
			return llmtest.Fail(fmt.Errorf("no fake model %q", req.Model))
		}
		return m(req, n)
	})
	h.rt = &Runtime{
		Provider: func(string) (llm.Provider, error) { return h.provider, nil },
		Registry: rtRegistry{h},
		Clock:    func() time.Time { return rtDate },
	}
	return h
}

type rtRegistry struct{ h *rtHarness }

func (r rtRegistry) Activity(name string) (Activity, bool) {
	r.h.mu.Lock()
	defer r.h.mu.Unlock()
	a, ok := r.h.activities[name]
	return a, ok
}

func (r rtRegistry) Tool(name string) (ToolDecl, bool) {
	r.h.mu.Lock()
	defer r.h.mu.Unlock()
	d, ok := r.h.tools[name]
	return d, ok
}

func (r rtRegistry) Agent(key string) (*Agent, bool) {
	r.h.mu.Lock()
	defer r.h.mu.Unlock()
	a, ok := r.h.agents[key]
	return a, ok
}

// model sets the fake model of an agent key.
func (h *rtHarness) model(key string, m rtModel) { h.mu.Lock(); h.models[key] = m; h.mu.Unlock() }

// script answers an agent's requests with the given solutions in order.
func (h *rtHarness) script(key string, solutions ...string) {
	h.model(key, func(_ *llm.Request, n int) llmtest.Reply {
		if n > len(solutions) {
			return llmtest.Fail(fmt.Errorf("model %q: no reply %d scripted", key, n))
		}
		return llmtest.Text(solutions[n-1])
	})
}

// requests returns the requests sent to one agent's model, in order.
func (h *rtHarness) requests(key string) []*llm.Request {
	var out []*llm.Request
	for _, r := range h.provider.Requests() {
		if r.Model == key {
			out = append(out, r)
		}
	}
	return out
}

// agent builds a normalised agent whose model key is its key (json_schema
// output), registers it (as a delegate target) and returns it. edit may
// change it before normalisation.
func (h *rtHarness) agent(key, prompt string, tools []ToolDecl, edit func(*Agent)) *Agent {
	h.t.Helper()
	a := &Agent{Key: key, SystemPrompt: prompt, Tools: tools, Model: ModelInfo{Key: key, StructuredOutput: "json_schema"}}
	if edit != nil {
		edit(a)
	}
	require.NoError(h.t, a.Normalize())
	h.mu.Lock()
	h.agents[key] = a
	h.mu.Unlock()
	return a
}

// activity registers a recording activity; result computes its result.
func (h *rtHarness) activity(name string, result func(call *Call, scoped Scoped) (Result, error)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.activities[name] = ActivityFunc(func(ctx context.Context, call *Call, tool *Tool, scoped Scoped) (Result, error) {
		d := rtDispatch{ToolID: call.ToolID, Tool: call.Tool, Activity: name, Kind: tool.Kind, Instance: call.Instance,
			Args: rtJSON(h.t, call.Args), View: scoped.Messages()}
		for _, m := range d.View {
			d.Scoped = append(d.Scoped, m.Kind)
		}
		h.mu.Lock()
		h.dispatches = append(h.dispatches, d)
		h.mu.Unlock()
		if result == nil {
			return Result{}, nil
		}
		return result(call, scoped)
	})
}

// dispatched returns the recorded dispatches sorted by tool id.
func (h *rtHarness) dispatched() []rtDispatch {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.dispatches)
	slices.SortFunc(out, func(a, b rtDispatch) int { return strings.Compare(a.ToolID, b.ToolID) })
	return out
}

// run runs an agent on an initial context (JSON messages) with a recording
// sink.
func (h *rtHarness) run(a *Agent, initial agentctx.Context, opts RunOptions) (*RunResult, error) {
	if opts.RunID == "" {
		opts.RunID = "run1"
	}
	opts.Sink = func(e Event) {
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.rt.Run(ctx, a, initial, opts)
}

// mustRun runs and requires no error.
func (h *rtHarness) mustRun(a *Agent, initial agentctx.Context, opts RunOptions) *RunResult {
	h.t.Helper()
	res, err := h.run(a, initial, opts)
	require.NoError(h.t, err)
	return res
}

// eventsOf returns the recorded events (all when no type is given).
func (h *rtHarness) eventsOf(types ...EventType) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if len(types) == 0 || slices.Contains(types, e.Type) {
			out = append(out, e)
		}
	}
	return out
}

// trace renders events as "type[:tool]" strings, optionally filtered.
func (h *rtHarness) trace(types ...EventType) []string {
	var out []string
	for _, e := range h.eventsOf(types...) {
		s := string(e.Type)
		switch {
		case e.ToolName != "":
			s += ":" + e.ToolName
		case e.Opinion != nil:
			s += ":" + e.Opinion.ID
		}
		out = append(out, s)
	}
	return out
}

// childStarts returns the contexts of the sub-runs, as JSON arrays, in
// the order they started.
func (h *rtHarness) childStarts() []string {
	var out []string
	for _, e := range h.eventsOf(EvRunStart) {
		if e.Depth > 0 {
			out = append(out, rtJSON(h.t, e.Context))
		}
	}
	return out
}

// rtCtx parses context messages given as one JSON array.
func rtCtx(t testing.TB, js string) agentctx.Context {
	t.Helper()
	c, err := agentctx.ParseContext([]byte(js))
	require.NoError(t, err)
	return c
}

// rtObj decodes a JSON object in ordered form.
func rtObj(t testing.TB, js string) *agentctx.Object {
	t.Helper()
	v, err := agentctx.Decode([]byte(js))
	require.NoError(t, err)
	o, ok := v.(*agentctx.Object)
	require.True(t, ok, "not an object: %s", js)
	return o
}

// rtJSON is the compact JSON of v.
func rtJSON(t testing.TB, v any) string {
	t.Helper()
	if msgs, ok := v.(agentctx.Context); ok {
		v = []agentctx.Message(msgs)
	}
	b, err := agentctx.Encode(v)
	require.NoError(t, err)
	return string(b)
}

// rtTool declares a tool from its parameters schema.
func rtTool(t testing.TB, name, fileKind, params string) ToolDecl {
	t.Helper()
	return ToolDecl{Name: name, FileKind: fileKind, Parameters: rtObj(t, params)}
}

// rtAdvisors parses advisor messages.
func rtAdvisors(t testing.TB, js string) []agentctx.Message {
	t.Helper()
	return []agentctx.Message(rtCtx(t, js))
}

// rtRead reads a path in the view of instance.
func rtRead(t testing.TB, c agentctx.Context, instance, path string) (string, bool) {
	t.Helper()
	v, ok, err := agentctx.ReadString(c.View(instance), path)
	require.NoError(t, err)
	if !ok {
		return "", false
	}
	return rtJSON(t, v), true
}

// rtErrors returns the error messages of a context as "code@call" strings
// (call = tool or "-").
func rtErrors(c agentctx.Context) []string {
	var out []string
	for _, m := range c {
		if m.Type != agentctx.TypeError || m.Error == nil {
			continue
		}
		where := "-"
		if o, ok := m.Error.Call.(*agentctx.Object); ok {
			if tool, ok := o.Get("_tool"); ok {
				where = fmt.Sprint(tool)
			}
		}
		out = append(out, m.Error.Code+"@"+where)
	}
	return out
}

// rtErrorOf returns the first error message with that code.
func rtErrorOf(t testing.TB, c agentctx.Context, code Code) *agentctx.ErrorInfo {
	t.Helper()
	for _, m := range c {
		if m.Type == agentctx.TypeError && m.Error != nil && m.Error.Code == string(code) {
			return m.Error
		}
	}
	t.Fatalf("no error %s in %v", code, rtErrors(c))
	return nil
}

// rtUser returns a request's user message.
func rtUser(req *llm.Request) string { return req.LastUserMessage() }

// rtSchema returns the wire schema a request carried.
func rtSchema(t testing.TB, req *llm.Request) string {
	t.Helper()
	require.NotNil(t, req.ResponseFormat, "request without response format")
	return string(req.ResponseFormat.Schema)
}

// rtWeights renders an opinion's weights as "tool:value" strings.
func rtWeights(o *Opinion) []string {
	var out []string
	for _, w := range o.Weights {
		out = append(out, fmt.Sprintf("%s:%g", w.Tool, w.Value))
	}
	return out
}

// rtCodes lists warning codes.
func rtCodes(ws []Warning) []Code {
	var out []Code
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// rtRecordingApprover answers with fn and counts its calls.
type rtRecordingApprover struct {
	mu   sync.Mutex
	reqs []ScopeRequest
	fn   func(ctx context.Context, req ScopeRequest) (ScopeDecision, error)
}

func (a *rtRecordingApprover) Decide(ctx context.Context, req ScopeRequest) (ScopeDecision, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	return a.fn(ctx, req)
}

func (a *rtRecordingApprover) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.reqs)
}
