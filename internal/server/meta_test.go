package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agentdef"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/store/memory"
	"github.com/aitexteditor/aite/internal/tool"
)

// mtDefinitions are the definition files of the meta tests (paths below the
// definitions root).
var mtDefinitions = map[string]string{
	"agents/alpha.json": `{"name": "Alpha", "role": "Reviewer", "description": "Reviews chapters", "icon": "emoji:📚",
		"mode": "ONESHOT", "modelConfig": {"modelKey": "m1"}, "toolConfig": {"backends": ["search"], "actions": ["open"]},
		"skills": ["pdf"], "plain": {"systemPrompt": "Review."}}`,
	"agents/zeta.json": `{"name": "Zeta", "role": "Writer", "icon": {"name": "pen", "color": "#123456"},
		"mode": "REACT", "modelConfig": {"modelKey": "m2"}, "react": {"systemPrompt": "Write."}}`,
	"agents/planner.json": `{"name": "Planner", "description": "Plans work", "mode": "PLAN_EXECUTE", "modelConfig": {"modelKey": "m1"},
		"planExecute": {"plan": {"systemPrompt": "Plan it."}, "execute": {"systemPrompt": "Execute it."},
		"summary": {"systemPrompt": "Sum it up."}}}`,
	"tools/web.backend": `{"tools": [{"type": "function", "name": "Search", "afterCallHint": "Cite the source.",
		"parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}, "strict": true}]}`,
	"tools/ask.frontend":    `{"tools": [{"type": "function", "name": "ask", "description": "Asks the user.", "toolApi": {"endpoint": "/x"}}]}`,
	"tools/open.action":     `{"tools": [{"type": "function", "name": "open", "description": "Opens a chapter."}]}`,
	"tools/dup1.action":     `{"tools": [{"type": "function", "name": "twice"}]}`,
	"tools/dup2.action":     `{"tools": [{"type": "function", "name": "twice"}]}`,
	"skills/pdf/SKILL.md":   "---\nname: PDF tools\ndescription: Reads PDF files\n---\nRun scripts/extract.py first.",
	"skills/notes/SKILL.md": "Keep notes short.",
	"viewports/ask.html":    "<form>ask</form>",
	"viewports/board.qlc":   `{"type": "board", "cells": [1, 2]}`,
	"viewports/broken.qlc":  `not json`,
}

// mtModels resolves m1 and m2.
var mtModels = map[string]string{"m1": "gpt-test-1", "m2": "gpt-test-2"}

type mtLookupArgs struct {
	Key string `json:"key" jsonschema:"what to look up"`
}

// mtBuiltins are the Go backend tools of the meta tests: search has a tool
// file without a description, lookup has no file.
func mtBuiltins() []tool.Tool {
	noop := func(context.Context, mtLookupArgs) (tool.Result, error) { return tool.Result{Text: "ok"}, nil }
	return []tool.Tool{
		tool.Must("search", "Finds passages.", noop),
		tool.Must("Lookup", "Looks a key up.", noop),
	}
}

// mtLoad writes files below a temp root and loads them.
func mtLoad(t *testing.T, files map[string]string) *agentdef.Snapshot {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	dirs := agentdef.Dirs{Agents: filepath.Join(root, "agents"), Tools: filepath.Join(root, "tools"),
		Skills: filepath.Join(root, "skills"), Viewports: filepath.Join(root, "viewports")}
	lookup := agentdef.ModelLookupFunc(func(key string) (models.Model, error) {
		if id, ok := mtModels[key]; ok {
			return models.Model{Key: key, Provider: "openai", ModelID: id}, nil
		}
		return models.Model{}, fmt.Errorf("%w %q", models.ErrUnknownModel, key)
	})
	snap, _ := agentdef.Load(dirs, lookup, map[string]bool{"search": true, "lookup": true})
	require.Len(t, snap.Agents(), 3)
	return snap
}

// mtHandler is a server over the meta test definitions.
func mtHandler(t *testing.T) http.Handler {
	t.Helper()
	snap := mtLoad(t, mtDefinitions)
	return New(Options{Store: memory.New(), Defs: func() *agentdef.Snapshot { return snap },
		ModelID: func(key string) string { return mtModels[key] }, BuiltinTools: mtBuiltins}).Handler()
}

// mtEnvelope is a decoded response envelope.
type mtEnvelope struct {
	Status int
	Code   int             `json:"code"`
	Msg    string          `json:"msg"`
	Data   json.RawMessage `json:"data"`
	Body   string
}

// mtGet performs a GET on h and decodes the envelope.
func mtGet(t *testing.T, h http.Handler, target string) mtEnvelope {
	t.Helper()
	return mtDo(t, h, localRequest(http.MethodGet, target, nil))
}

func mtDo(t *testing.T, h http.Handler, req *http.Request) mtEnvelope {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	env := mtEnvelope{Status: rec.Code, Body: string(body)}
	require.NoError(t, json.Unmarshal(body, &env), string(body))
	require.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json"), rec.Header().Get("Content-Type"))
	return env
}

// mtData decodes the data of a success envelope into v.
func mtData[T any](t *testing.T, env mtEnvelope) T {
	t.Helper()
	require.Equal(t, http.StatusOK, env.Status, env.Body)
	require.Equal(t, 0, env.Code)
	require.Equal(t, "success", env.Msg)
	var v T
	require.NoError(t, json.Unmarshal(env.Data, &v), string(env.Data))
	return v
}

// mtFail checks a failure envelope: status = code, msg, and data (JSON).
func mtFail(t *testing.T, env mtEnvelope, status int, msg, data string) {
	t.Helper()
	require.Equal(t, status, env.Status, env.Body)
	require.Equal(t, status, env.Code)
	require.Equal(t, msg, env.Msg)
	require.JSONEq(t, data, string(env.Data))
}

func TestMetaEnvelopeAndValidation(t *testing.T) {
	h := mtHandler(t)
	// Row 1: success envelope; lists put the array straight in data.
	for _, path := range []string{"/api/ap/agents", "/api/ap/skills", "/api/ap/tools"} {
		env := mtGet(t, h, path)
		list := mtData[[]map[string]any](t, env)
		require.NotEmpty(t, list, path)
		require.True(t, strings.HasPrefix(string(env.Data), "["), path)
	}
	// Row 2: missing or blank required parameters.
	for _, tc := range []struct{ path, field string }{
		{"/api/ap/agent", "agentKey"}, {"/api/ap/agent?agentKey=%20", "agentKey"},
		{"/api/ap/skill?skillId=", "skillId"}, {"/api/ap/tool", "toolName"}, {"/api/ap/viewport", "viewportKey"},
	} {
		env := mtGet(t, h, tc.path)
		mtFail(t, env, http.StatusBadRequest, "Validation failed", `{"fields": {"`+tc.field+`": "must not be blank"}}`)
	}
	// Wrong method and unknown paths are 404 envelopes.
	mtFail(t, mtDo(t, h, localRequest(http.MethodPost, "/api/ap/agents", nil)), http.StatusNotFound, "Not found", `{}`)
}

func TestMetaAgents(t *testing.T) {
	h := mtHandler(t)
	all := mtData[[]agentSummary](t, mtGet(t, h, "/api/ap/agents"))
	keys := []string{}
	for _, a := range all {
		keys = append(keys, a.Key)
	}
	require.Equal(t, []string{"alpha", "planner", "zeta"}, keys, "sorted by key")

	env := mtGet(t, h, "/api/ap/agents?tag=REVIEW")
	require.JSONEq(t, `[{"key": "alpha", "name": "Alpha", "icon": "emoji:📚", "description": "Reviews chapters",
		"role": "Reviewer", "meta": {"model": "gpt-test-1", "mode": "ONESHOT", "tools": ["search", "open"], "skills": ["pdf"]}}]`,
		string(env.Data))
	require.JSONEq(t, `[{"key": "zeta", "name": "Zeta", "icon": {"name": "pen", "color": "#123456"}, "description": "",
		"role": "Writer", "meta": {"model": "gpt-test-2", "mode": "REACT", "tools": [], "skills": []}}]`,
		string(mtGet(t, h, "/api/ap/agents?tag=writ").Data))
	// The tag also matches tool names and skill names.
	for _, tag := range []string{"OPEN", "pdf tools", "plans"} {
		require.Len(t, mtData[[]agentSummary](t, mtGet(t, h, "/api/ap/agents?tag="+strings.ReplaceAll(tag, " ", "+"))), 1, tag)
	}
	require.Empty(t, mtData[[]agentSummary](t, mtGet(t, h, "/api/ap/agents?tag=nothing-like-this")))

	// Row 4: PLAN_EXECUTE instructions are the execute prompt.
	d := mtData[map[string]any](t, mtGet(t, h, "/api/ap/agent?agentKey=planner"))
	require.Equal(t, "Execute it.", d["instructions"])
	require.Equal(t, "PLAN_EXECUTE", d["meta"].(map[string]any)["mode"])
	require.NotContains(t, d, "icon", "an absent icon is omitted")
	require.Equal(t, "Review.", mtData[map[string]any](t, mtGet(t, h, "/api/ap/agent?agentKey=alpha"))["instructions"])

	// Row 5: unknown agent.
	mtFail(t, mtGet(t, h, "/api/ap/agent?agentKey=nope"), http.StatusBadRequest,
		"Unknown agentId: nope. Available: [alpha, planner, zeta]", `{}`)
}

func TestInstructionsFallBack(t *testing.T) {
	a := agentdef.AgentDef{Mode: agentdef.ModePlanExecute, PlanExecute: &agentdef.PlanExecuteBlock{
		Plan: agentdef.Stage{SystemPrompt: "plan"}, Execute: agentdef.Stage{SystemPrompt: " "}}}
	require.Equal(t, "plan", instructions(a))
	a.PlanExecute.Summary = &agentdef.Stage{SystemPrompt: "summary"}
	require.Equal(t, "summary", instructions(a))
}

func TestMetaSkills(t *testing.T) {
	h := mtHandler(t)
	require.JSONEq(t, `[{"key": "notes", "name": "notes", "description": "", "meta": {"promptTruncated": false}},
		{"key": "pdf", "name": "PDF tools", "description": "Reads PDF files", "meta": {"promptTruncated": false}}]`,
		string(mtGet(t, h, "/api/ap/skills").Data))
	// The tag matches the prompt body too.
	require.Len(t, mtData[[]skillSummary](t, mtGet(t, h, "/api/ap/skills?tag=EXTRACT.py")), 1)
	require.JSONEq(t, `{"key": "pdf", "name": "PDF tools", "description": "Reads PDF files", "meta": {"promptTruncated": false},
		"instructions": "Run scripts/extract.py first."}`, string(mtGet(t, h, "/api/ap/skill?skillId=PDF").Data))
	mtFail(t, mtGet(t, h, "/api/ap/skill?skillId=ghost"), http.StatusBadRequest, "Unknown skillId: ghost", `{}`)
}

func TestMetaTools(t *testing.T) {
	h := mtHandler(t)
	names := func(path string) []string {
		var out []string
		for _, s := range mtData[[]toolSummary](t, mtGet(t, h, path)) {
			out = append(out, s.Name)
		}
		return out
	}
	// Sorted by name; the duplicate "twice" is absent; lookup has no file.
	require.Equal(t, []string{"ask", "lookup", "open", "search"}, names("/api/ap/tools"))
	// Row 6: the kind filter, case-insensitive.
	require.Equal(t, []string{"ask"}, names("/api/ap/tools?kind=FRONTEND"))
	require.Equal(t, []string{"lookup", "search"}, names("/api/ap/tools?kind=backend"))
	require.Equal(t, []string{"open"}, names("/api/ap/tools?kind=Action&tag=chapter"))
	mtFail(t, mtGet(t, h, "/api/ap/tools?kind=bogus"), http.StatusBadRequest,
		"Invalid kind: bogus. Use backend|frontend|action", `{}`)
	// The tag covers afterCallHint, toolApi, viewportKey and toolType.
	require.Equal(t, []string{"search"}, names("/api/ap/tools?tag=cite"))
	require.Equal(t, []string{"ask"}, names("/api/ap/tools?tag=endpoint"))
	require.Equal(t, []string{"lookup", "search"}, names("/api/ap/tools?tag=FUNCTION"))

	require.JSONEq(t, `[{"key": "ask", "name": "ask", "description": "Asks the user.",
		"meta": {"kind": "frontend", "toolType": "frontend", "toolApi": {"endpoint": "/x"}, "viewportKey": "ask", "strict": false}}]`,
		string(mtGet(t, h, "/api/ap/tools?kind=frontend").Data))

	// Row 7: the detail has parameters and afterCallHint; the file without a
	// description keeps the built-in one.
	require.JSONEq(t, `{"key": "search", "name": "search", "description": "Finds passages.",
		"meta": {"kind": "backend", "toolType": "function", "strict": true}, "afterCallHint": "Cite the source.",
		"parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}`,
		string(mtGet(t, h, "/api/ap/tool?toolName=SEARCH").Data))
	lookup := mtData[map[string]any](t, mtGet(t, h, "/api/ap/tool?toolName=lookup"))
	require.Equal(t, map[string]any{"kind": "backend", "toolType": "function", "strict": false}, lookup["meta"])
	require.Equal(t, "Looks a key up.", lookup["description"])
	require.NotContains(t, lookup, "afterCallHint")
	params, err := json.Marshal(lookup["parameters"])
	require.NoError(t, err)
	require.JSONEq(t, string(mtBuiltins()[1].Parameters()), string(params))
	mtFail(t, mtGet(t, h, "/api/ap/tool?toolName=ghost"), http.StatusBadRequest, "Unknown toolName: ghost", `{}`)
	mtFail(t, mtGet(t, h, "/api/ap/tool?toolName=twice"), http.StatusBadRequest, "Unknown toolName: twice", `{}`)
}

func TestMetaViewports(t *testing.T) {
	h := mtHandler(t)
	require.JSONEq(t, `{"html": "<form>ask</form>"}`, string(mtGet(t, h, "/api/ap/viewport?viewportKey=ASK").Data))
	require.JSONEq(t, `{"type": "board", "cells": [1, 2]}`, string(mtGet(t, h, "/api/ap/viewport?viewportKey=board").Data))
	mtFail(t, mtGet(t, h, "/api/ap/viewport?viewportKey=broken"), http.StatusNotFound, "Viewport not found: broken", `{}`)
	mtFail(t, mtGet(t, h, "/api/ap/viewport?viewportKey=nope"), http.StatusNotFound, "Viewport not found: nope", `{}`)
}

func TestMetaWithoutDefinitions(t *testing.T) {
	h := New(Options{Store: memory.New()}).Handler()
	require.Equal(t, "[]", string(mtGet(t, h, "/api/ap/agents").Data))
	require.Equal(t, "[]", string(mtGet(t, h, "/api/ap/tools").Data))
	mtFail(t, mtGet(t, h, "/api/ap/agent?agentKey=x"), http.StatusBadRequest, "Unknown agentId: x. Available: []", `{}`)
}

// TestMetaToolsProtocolKinds: /tools lists the protocol kinds latent and
// delegate (kind filter included) and `meta.scopes` for tools declaring
// `_scopes` (AGENT_PROTOCOL § 5.2); other tools keep their exact output.
func TestMetaToolsProtocolKinds(t *testing.T) {
	files := map[string]string{
		"tools/notes.latent": `{"tools": [{"type": "function", "name": "draft", "description": "Drafts.",
			"parameters": {"type": "object", "properties": {"_scopes": {"const": ["input"]}, "_output": {"type": "object"}}}}]}`,
		"tools/book.delegate": `{"tools": [{"type": "function", "name": "run_cursor_agent", "parameters": {"type": "object",
			"properties": {"_delegate": {"const": "anonymous"},
			"_scopes": {"type": "array", "items": {"enum": ["characters", "glossary"]}, "provisioned": ["input"]},
			"task": {"type": "string"}}}}]}`,
		"tools/log.action": `{"tools": [{"type": "function", "name": "log_event", "parameters": {"type": "object",
			"properties": {"_scopes": {"type": "array", "items": {"enum": ["state", "input"]}}, "eventName": {"type": "string"}}}}]}`,
	}
	for k, v := range mtDefinitions {
		files[k] = v
	}
	snap := mtLoad(t, files)
	h := New(Options{Store: memory.New(), Defs: func() *agentdef.Snapshot { return snap },
		ModelID: func(key string) string { return mtModels[key] }, BuiltinTools: mtBuiltins}).Handler()

	require.JSONEq(t, `[{"key": "draft", "name": "draft", "description": "Drafts.",
		"meta": {"kind": "latent", "toolType": "latent", "strict": false, "scopes": {"provisioned": ["input"], "requested": []}}}]`,
		string(mtGet(t, h, "/api/ap/tools?kind=LATENT").Data))
	require.JSONEq(t, `[{"key": "run_cursor_agent", "name": "run_cursor_agent", "description": "",
		"meta": {"kind": "delegate", "toolType": "delegate", "strict": false,
		"scopes": {"provisioned": ["input"], "requested": ["characters", "glossary"]}}}]`,
		string(mtGet(t, h, "/api/ap/tools?kind=delegate").Data))
	require.JSONEq(t, `[{"key": "log_event", "name": "log_event", "description": "",
		"meta": {"kind": "action", "toolType": "action", "strict": false, "scopes": {"provisioned": [], "requested": ["state", "input"]}}},
		{"key": "open", "name": "open", "description": "Opens a chapter.", "meta": {"kind": "action", "toolType": "action", "strict": false}}]`,
		string(mtGet(t, h, "/api/ap/tools?kind=action").Data))
	// Byte-exact for a tool without _scopes: no scopes key.
	require.Equal(t, `[{"key":"ask","name":"ask","description":"Asks the user.","meta":{"kind":"frontend","toolType":"frontend",`+
		`"toolApi":{"endpoint":"/x"},"viewportKey":"ask","strict":false}}]`, string(mtGet(t, h, "/api/ap/tools?kind=frontend").Data))
	// The detail keeps the meta-properties of the parameters, as written.
	require.JSONEq(t, `{"key": "draft", "name": "draft", "description": "Drafts.",
		"meta": {"kind": "latent", "toolType": "latent", "strict": false, "scopes": {"provisioned": ["input"], "requested": []}},
		"parameters": {"type": "object", "properties": {"_scopes": {"const": ["input"]}, "_output": {"type": "object"}}}}`,
		string(mtGet(t, h, "/api/ap/tool?toolName=draft").Data))
	require.Equal(t, []string{"draft"}, func() []string {
		var out []string
		for _, s := range mtData[[]toolSummary](t, mtGet(t, h, "/api/ap/tools?tag=latent")) {
			out = append(out, s.Name)
		}
		return out
	}())
}

// localRequest is httptest.NewRequest for a client on the server's own
// machine: Host localhost (the security chain answers loopback names only,
// unless configured).
func localRequest(method, target string, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, target, body)
	r.Host = "localhost"
	return r
}
