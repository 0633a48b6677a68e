package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/tool"
)

// protoFiles are the definitions of the protocol tests: a REACT protocol
// agent "a" with a backend tool, an advisor and the given protocol extras;
// more adds top-level keys.
func protoFiles(protocolMore, more string) map[string]string {
	return map[string]string{
		"agents/a.json": `{"key": "a", "name": "Proto", "mode": "REACT", "modelConfig": {"modelKey": "m1"},
			"react": {"systemPrompt": "You act.", "maxSteps": 4},
			"toolConfig": {"backends": ["echo"]},
			"protocol": {"outputSchema": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
				"outputText": "answer"` + comma(protocolMore) + `},
			"advisors": [{"id": "gate", "on": "request", "role": "Careful editor.",
				"schema": {"type": "object", "properties": {"thought": {"type": "string"}}, "required": ["thought"]}}]` + comma(more) + `}`,
		"tools/echo.backend": `{"tools": [{"type": "function", "name": "echo", "description": "Echoes a text.",
			"parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]}`,
	}
}

// solution is a scripted reply holding a solution.
func solution(s string) llmtest.Reply { return llmtest.Text(s) }

// AGENT_PROTOCOL § 5.3 (vector A1 shape): a protocol REACT agent with a
// backend tool and an advisor: reasoning streams, advisor.snapshot comes
// before the turn's tool.start, each call is start → one args → end, its
// result follows; the solution JSON is never streamed as content; the
// output is one content block (the outputText field), then run.complete.
func TestProtocolReactEvents(t *testing.T) {
	e := newEnv(t, protoFiles("", ""))
	p := scripted(
		llmtest.Join(llmtest.Reasoning("think"), solution(`{"advisors":[{"id":"gate","thought":"safe","calls":"{\"echo\":80}"}],
			"calls":[{"_tool":"echo","_reasoningForCall":"say hi","text":"hi"}],"output":null}`)),
		solution(`{"advisors":[{"id":"gate","thought":"done","calls":"{}"}],"calls":[],"output":{"answer":"Done."}}`),
	)
	e.provide(p)
	rec, s := e.run("a", "greet")
	rec.requireTerminal(t, "complete:stop")
	id := s.RunID + "_call_1_0"
	require.Equal(t, []string{
		"reasoning:think",
		`advisor:gate::{"echo":80}:`,
		"start:" + id + ":echo:backend",
		"args:" + id + `:{"text":"hi"}`,
		"end:" + id,
		"result:" + id + `:echo:{"text":"hi"}`,
		"turn",
		`advisor:gate::{}:`,
		"turn",
		"content:Done.",
		"turn",
		"turn",
		"complete:stop",
	}, rec.list())
	c := rec.calls[id]
	require.Equal(t, "say hi", c.Description)
	require.Equal(t, "function", c.ToolType)
	require.JSONEq(t, `{"text":"hi"}`, string(c.ToolParams))
	require.Equal(t, []string{`{"text":"hi"}`}, e.tools["echo"].received())
	require.Len(t, p.Requests(), 2)

	// Chat memory: the user message, one step per request (react-step-N),
	// a context line per turn and the conversation push.
	msgs := e.messages(s.RunID)
	var got []string
	for _, m := range msgs {
		switch {
		case m["_type"] == "step":
			got = append(got, "step:"+m["@stage"].(string)+":"+m["_stage"].(string))
			require.NotNil(t, m["_solution"])
			require.Len(t, m["messages"], 3)
		case m["_type"] == "context":
			var types []string
			for _, cm := range m["messages"].([]any) {
				o := cm.(map[string]any)
				types = append(types, o["type"].(string)+"/"+str(o["kind"]))
			}
			got = append(got, "context:"+m["@stage"].(string)+":"+strings.Join(types, ","))
		default:
			got = append(got, m["role"].(string)+":"+m["@stage"].(string))
		}
	}
	require.Equal(t, []string{
		"user:react-step-1",
		"step:react-step-1:react",
		"context:context:advice/,data/data",
		"step:react-step-2:react",
		"context:context:advice/",
		"context:context:data/conversation",
	}, got)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// AGENT_PROTOCOL § 5.5: a later run of the same chat starts from the
// context lines of the earlier ones (the conversation log included) and
// its own input.
func TestProtocolChatMemory(t *testing.T) {
	e := newEnv(t, protoFiles("", ""))
	p := scripted(
		solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"First."}}`),
		solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"Second."}}`),
	)
	e.provide(p)
	rec, _ := e.run("a", "first question")
	rec.requireTerminal(t, "complete:stop")
	rec, _ = e.run("a", "second question")
	rec.requireTerminal(t, "complete:stop")
	reqs := p.Requests()
	require.Len(t, reqs, 2)
	user := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	require.Contains(t, user, "first question")
	require.Contains(t, user, "First.")
	require.Contains(t, user, "second question")
	require.NotContains(t, reqs[0].Messages[len(reqs[0].Messages)-1].Content, "conversation")
}

// AGENT_PROTOCOL § 4.8 LM5 (vector L1 shape): a run that reaches maxTurns
// without output ends with run.complete max_turns and the ledger.
func TestProtocolLedgerOnMaxTurns(t *testing.T) {
	e := newEnv(t, protoFiles(`"limits": {"maxTurns": 2}, "repairRetries": 0`, ""))
	p := scripted(
		solution(`{"advisors":[{"id":"gate","thought":"go","calls":"{}"}],"calls":[{"_tool":"echo","_reasoningForCall":"x","text":"a"}],"output":null}`),
		solution(`{"advisors":[{"id":"gate","thought":"hm","calls":"{}"}],"output":null}`),
	)
	e.provide(p)
	rec, _ := e.run("a", "loop")
	rec.requireTerminal(t, "complete:max_turns:maxTurns")
	require.NotNil(t, rec.ledger)
	require.Equal(t, 2, rec.ledger.Turns)
	require.Equal(t, 2, rec.ledger.ModelCalls)
	require.Equal(t, 1, rec.ledger.ToolCalls)
	require.NotNil(t, rec.ledger.PendingCalls)
	require.Empty(t, rec.filter("content:"))
}

// scopeFiles add a backend tool "lookup" with requested scopes and a
// state-holding context to the protocol agent (approval "ask").
func scopeFiles(timeoutMs string) map[string]string {
	f := protoFiles(`"context": [{"type": "state", "state": {"userId": "u_42"}}, {"type": "data", "kind": "glossary", "data": {"tardis": "a time machine"}}],
		"approval": {"requestedScopes": "ask", "timeoutMs": `+timeoutMs+`}`, "")
	f["agents/a.json"] = strings.Replace(f["agents/a.json"], `"backends": ["echo"]`, `"backends": ["echo", "today"]`, 1)
	f["tools/today.backend"] = `{"tools": [{"type": "function", "name": "today", "description": "Reads the date.",
		"parameters": {"type": "object", "properties": {"_scopes": {"type": "array", "items": {"enum": ["state", "glossary"]}, "provisioned": ["input"]},
			"q": {"type": "string"}}, "required": ["q"]}}]}`
	return f
}

// scopeRun starts the X5/X6 scenario: turn 1 calls today with requested
// scopes; decide is called once the scope.request is out; the run ends
// with turn 2's output.
func scopeRun(t *testing.T, timeoutMs string, decide func(e *env, runID string)) (*env, *recorder, string) {
	e := newEnv(t, scopeFiles(timeoutMs))
	p := scripted(
		solution(`{"advisors":[{"id":"gate","thought":"go","calls":"{}"}],
			"calls":[{"_tool":"today","_reasoningForCall":"need the date","_scopes":["state","glossary"],"q":"date"}],"output":null}`),
		solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"Done."}}`),
	)
	e.provide(p)
	s := e.spec("a", "when")
	rec := e.recorder(s)
	done := make(chan error, 1)
	go func() { done <- rec.drain(e.eng.Run(context.Background(), s)) }()
	require.Eventually(t, func() bool { return len(rec.filter("scope.request:")) == 1 }, waitLong, tick)
	decide(e, s.RunID)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitLong):
		t.Fatal("the run did not end")
	}
	rec.requireTerminal(t, "complete:stop")
	return e, rec, s.RunID
}

// AGENT_PROTOCOL § 5.4, vector X5: a narrowed approval through SubmitScope:
// tool.end → scope.request{approvalId, provisioned, scopes} →
// request.submit (the params) → scope.decision (effective grant) →
// tool.result; the tool runs. (What a client may post is the server's
// concern: decisions_test.go.)
func TestProtocolScopeNarrow(t *testing.T) {
	params := `{"decision":"narrow","scopes":["glossary"],"remember":"run"}`
	e, rec, runID := scopeRun(t, "5000", func(e *env, runID string) {
		require.True(t, e.submit(runID, "scope:"+runID+"_call_1_0", params))
	})
	id := runID + "_call_1_0"
	require.Equal(t, []string{
		"end:" + id,
		"scope.request:" + id + ":today:scope:" + id + ":[input]:[state glossary]:",
		"submit:scope:" + id + ":" + params,
		"scope.decision:" + id + ":narrow:[input glossary]:user::",
		"result:" + id + `:{"date":"2024-01-31","at":"2024-02-28T10:00:00Z","n":5,"list":[{"x":"y"}]}`,
	}, rec.filter("end:"+id, "scope.", "submit:", "result:"))
	require.Equal(t, 1, e.tools["today"].calls())
}

// AGENT_PROTOCOL § 5.4, vector X6: deny (the call is not dispatched, the
// run continues, the next turn sees scope_denied) and timeout (b).
func TestProtocolScopeDenyAndTimeout(t *testing.T) {
	t.Run("deny", func(t *testing.T) {
		e, rec, runID := scopeRun(t, "5000", func(e *env, runID string) {
			require.True(t, e.submit(runID, "scope:"+runID+"_call_1_0", `{"decision":"deny","reason":"private"}`))
		})
		id := runID + "_call_1_0"
		require.Equal(t, []string{
			"submit:scope:" + id + `:{"decision":"deny","reason":"private"}`,
			"scope.decision:" + id + ":deny:[input]:user:private:",
		}, rec.filter("submit:", "scope.decision"))
		res := rec.filter("result:" + id)
		require.Len(t, res, 1)
		require.Contains(t, res[0], `"code":"scope_denied"`)
		require.Zero(t, e.tools["today"].calls())
	})
	t.Run("timeout", func(t *testing.T) {
		e, rec, runID := scopeRun(t, "50", func(*env, string) {})
		id := runID + "_call_1_0"
		dec := rec.filter("scope.decision")
		require.Len(t, dec, 1)
		require.True(t, strings.HasPrefix(dec[0], "scope.decision:"+id+":timeout:[input]:policy:"), dec[0])
		require.Empty(t, rec.filter("submit:"))
		require.Zero(t, e.tools["today"].calls())
		require.False(t, e.pending(runID, "scope:"+id))
	})
}

// AGENT_PROTOCOL § 5.4: approve grants every requested scope.
func TestProtocolScopeApprove(t *testing.T) {
	e, rec, runID := scopeRun(t, "5000", func(e *env, runID string) {
		require.True(t, e.submit(runID, "scope:"+runID+"_call_1_0", `{"decision":"approve"}`))
	})
	require.Equal(t, []string{"scope.decision:" + runID + "_call_1_0:approve:[input state glossary]:user::"},
		rec.filter("scope.decision"))
	require.Equal(t, 1, e.tools["today"].calls())
}

// AGENT_PROTOCOL § 4.6 DG6: a delegate's sub-run is not streamed, but its
// advisor.snapshot is, with parentToolId; its steps are stored with stage
// delegate and _parentToolId; the child's output is the call's result.
func TestProtocolDelegate(t *testing.T) {
	f := protoFiles("", "")
	f["agents/a.json"] = strings.Replace(f["agents/a.json"], `"backends": ["echo"]`, `"backends": ["echo"], "delegates": ["summarize"]`, 1)
	f["agents/child.json"] = `{"key": "child", "name": "Child", "mode": "REACT", "modelConfig": {"modelKey": "m2"},
		"react": {"systemPrompt": "You summarise.", "maxSteps": 2},
		"protocol": {"outputSchema": {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}},
		"advisors": [{"id": "critic", "on": "request", "schema": {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]}}]}`
	f["tools/summarize.delegate"] = `{"tools": [{"type": "function", "name": "summarize", "description": "Summarises a text.",
		"parameters": {"type": "object", "properties": {"_delegate": {"const": "child"}, "text": {"type": "string"}}, "required": ["text"]}}]}`
	e := newEnv(t, f)
	parent := scripted(
		solution(`{"advisors":[{"id":"gate","thought":"delegate","calls":"{}"}],
			"calls":[{"_tool":"summarize","_reasoningForCall":"too long","text":"A long text."}],"output":null}`),
		solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"Short."}}`),
	)
	child := scripted(
		llmtest.Join(llmtest.Reasoning("child thinking"), solution(`{"advisors":[{"id":"critic","note":"fine","calls":"{}"}],"calls":[],"output":{"summary":"Short."}}`)),
	)
	e.provide(parent, child)
	rec, s := e.run("a", "summarise")
	rec.requireTerminal(t, "complete:stop")
	id := s.RunID + "_call_1_0"
	require.Equal(t, []string{
		`advisor:gate::{}:`,
		"start:" + id + ":summarize:backend",
		"args:" + id + `:{"text":"A long text."}`,
		"end:" + id,
		`advisor:critic::{}:` + id,
		"result:" + id + `:{"summary":"Short."}`,
	}, rec.filter("advisor:", "start:", "args:", "end:", "result:")[:6])
	require.Equal(t, "delegate", rec.calls[id].ToolType)
	require.Empty(t, rec.filter("reasoning:child"), "the child's text is not streamed")
	require.Contains(t, child.Requests()[0].Messages[1].Content, "A long text.")

	var delegate []map[string]any
	for _, m := range e.messages(s.RunID) {
		if m["@stage"] == "delegate" {
			delegate = append(delegate, m)
		}
	}
	require.Len(t, delegate, 1)
	require.Equal(t, "delegate", delegate[0]["_stage"])
	require.Equal(t, id, delegate[0]["_parentToolId"])
}

// AGENT_PROTOCOL § 4.5 and § 5.3: a frontend tool waits for /submit (its
// wait registered at tool.start: html toolType, toolKey, toolTimeout) and
// returns the submitted params after request.submit; an action gets "OK"
// at once. Requests use the provider's model id.
func TestProtocolFrontendAndAction(t *testing.T) {
	f := protoFiles("", "")
	f["agents/a.json"] = strings.Replace(f["agents/a.json"], `"backends": ["echo"]`,
		`"frontends": ["pick_date"], "actions": ["highlight"]`, 1)
	f["tools/form.frontend"] = `{"tools":[{"type":"function","name":"pick_date","description":"Pick a date."}]}`
	f["viewports/form.html"] = "<html></html>"
	f["tools/highlight.action"] = `{"tools":[{"type":"function","name":"highlight","description":"Highlights.",
		"parameters":{"type":"object","properties":{"pointer":{"type":"string"}},"required":["pointer"]}}]}`
	e := newEnv(t, f)
	p := scripted(
		solution(`{"advisors":[{"id":"gate","thought":"ask","calls":"{}"}],"calls":[
			{"_tool":"highlight","_reasoningForCall":"show","pointer":"3:1.p1"},
			{"_tool":"pick_date","_reasoningForCall":"need a date"}],"output":null}`),
		solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"Booked."}}`),
	)
	e.provide(p)
	rec, s, wait := e.startAsync(context.Background())
	fid := s.RunID + "_call_1_1"
	e.submitWhenPending(s.RunID, fid, `{"date":"2024-05-01"}`)
	wait()
	rec.requireTerminal(t, "complete:stop")
	aid := s.RunID + "_call_1_0"
	require.Equal(t, []string{"start:" + aid + ":highlight:action", "start:" + fid + ":pick_date:frontend"}, rec.filter("start:"))
	require.Equal(t, []string{"action:" + aid + ":OK"}, rec.filter("action:"+aid), "the calls run in parallel")
	require.Equal(t, []string{
		"submit:" + fid + `:{"date":"2024-05-01"}`,
		"result:" + fid + `:{"date":"2024-05-01"}`,
	}, rec.filter("submit:", "result:"+fid))
	c := rec.calls[fid]
	require.Equal(t, "html", c.ToolType)
	require.Equal(t, "form", c.ToolKey)
	require.Equal(t, int64(1000), c.ToolTimeout)
	require.Equal(t, "id-m1", p.Requests()[0].Model)
	require.Contains(t, p.Requests()[1].Messages[1].Content, "2024-05-01", "the submitted value reaches the model")
}

// A protocol run whose model fails ends with run.error model_error; an
// unknown context provider fails the run before any model call.
func TestProtocolFailures(t *testing.T) {
	t.Run("model error", func(t *testing.T) {
		e := newEnv(t, protoFiles("", ""))
		e.provide(scripted(llmtest.Fail(&llm.Error{Kind: llm.BadRequest, Status: 400, Message: "bad"})))
		rec, _ := e.run("a", "x")
		rec.requireTerminal(t, "fail:model_error")
	})
	t.Run("unknown provider", func(t *testing.T) {
		e := newEnv(t, protoFiles(`"context": [{"type": "data", "kind": "glossary", "provider": "book.glossary"}]`, ""))
		p := scripted()
		e.provide(p)
		rec, _ := e.run("a", "x")
		rec.requireTerminal(t, "fail:internal_error")
		require.Contains(t, rec.info.Message, `context provider "book.glossary" is not registered`)
		require.Empty(t, p.Requests())
	})
	t.Run("provider", func(t *testing.T) {
		e := newEnv(t, protoFiles(`"context": [{"type": "data", "kind": "glossary", "provider": "book.glossary"}]`, ""))
		e.context = map[string]ContextProvider{"book.glossary": func(context.Context) ([]agentctx.Message, error) {
			return []agentctx.Message{{Type: agentctx.TypeData, Kind: "glossary", HasValue: true,
				Value: agentctx.NewObject("tardis", "a time machine")}}, nil
		}}
		p := scripted(solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"ok"}}`))
		e.provide(p)
		rec, _ := e.run("a", "x")
		rec.requireTerminal(t, "complete:stop")
		require.Contains(t, p.Requests()[0].Messages[0].Content, "a time machine")
	})
}

// AGENT_PROTOCOL AP4/AP5, vector X10 shape: two calls of the same tool in
// one turn; the client approves the first with remember "run"; the second
// is approved by memory without a second scope.request.
func TestProtocolScopeRememberRun(t *testing.T) {
	e := newEnv(t, scopeFiles("5000"))
	p := scripted(
		solution(`{"advisors":[{"id":"gate","thought":"go","calls":"{}"}],"calls":[
			{"_tool":"today","_reasoningForCall":"a","_scopes":["state"],"q":"one"},
			{"_tool":"today","_reasoningForCall":"b","_scopes":["state"],"q":"two"}],"output":null}`),
		solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"Done."}}`),
	)
	e.provide(p)
	rec, s, wait := e.startAsync(context.Background())
	require.Eventually(t, func() bool { return len(rec.filter("scope.request:")) == 1 }, waitLong, tick)
	req := rec.filter("scope.request:")[0]
	toolID := strings.Split(req, ":")[1]
	require.True(t, e.submit(s.RunID, "scope:"+toolID, `{"decision":"approve","remember":"run"}`))
	wait()
	rec.requireTerminal(t, "complete:stop")
	require.Len(t, rec.filter("scope.request:"), 1, "one prompt for both calls")
	var by []string
	for _, d := range rec.filter("scope.decision:") {
		by = append(by, strings.Split(d, ":")[4])
	}
	require.Equal(t, []string{"user", "memory"}, by)
	require.Equal(t, 2, e.tools["today"].calls())
}

// Spec.Activities: a native activity wins over the Go tool of the same
// name, gets the call id in its context and reports edits
// (tool.ReportEdit) that stream as document.edit before its result.
func TestProtocolNativeActivity(t *testing.T) {
	e := newEnv(t, protoFiles("", ""))
	e.activities = map[string]protocol.Activity{"Echo": protocol.ActivityFunc(func(ctx context.Context, _ *protocol.Call, _ *protocol.Tool, _ protocol.Scoped) (protocol.Result, error) {
		tool.ReportEdit(ctx, tool.Edit{Book: "doc1", Op: "replace", Pointer: "3:1.p1", Revision: 4})
		return protocol.Result{Value: "native " + CallID(ctx)}, nil
	})}
	p := scripted(
		solution(`{"advisors":[{"id":"gate","thought":"go","calls":"{}"}],"calls":[{"_tool":"echo","_reasoningForCall":"x","text":"a"}],"output":null}`),
		solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"ok"}}`),
	)
	e.provide(p)
	rec, s := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	id := s.RunID + "_call_1_0"
	require.Equal(t, []string{"edit:" + id + ":replace:3:1.p1:4", "result:" + id + ":native " + id}, rec.filter("edit:", "result:"))
	require.Zero(t, e.tools["echo"].calls())
}
