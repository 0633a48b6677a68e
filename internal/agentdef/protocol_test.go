package agentdef

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// protocolBackends are the Go tools of the protocol tests.
var protocolBackends = map[string]bool{"create_keyword_cursor": true, "create_targets": true, "replace_text": true,
	"search": true}

// protocolTools are the tool files of the book editor example (§ 5.1, § 6.2).
var protocolTools = map[string]string{
	"book.backend": `{"tools": [{"type": "function", "name": "create_keyword_cursor"},
		{"type": "function", "name": "create_targets"}, {"type": "function", "name": "replace_text"}]}`,
	"ask_user.frontend": `{"tools": [{"type": "function", "name": "ask_user"}]}`,
	"book.delegate": `{"tools": [{"type": "function", "name": "run_cursor_agent",
		"description": "Scan the book with an existing cursor and return the single best matching item.",
		"parameters": {"type": "object", "properties": {"_delegate": {"const": "cursorAgent"},
			"_scopes": {"type": "array", "items": {"enum": ["characters", "glossary", "styleGuide"]}, "provisioned": ["input"]},
			"cursorName": {"type": "string"}, "task": {"type": "string"}}, "required": ["cursorName", "task"]}},
		{"type": "function", "name": "rewrite_paragraph", "parameters": {"type": "object",
			"properties": {"_delegate": {"const": "anonymous"}, "_output": {"type": "object"}, "text": {"type": "string"}}}}]}`,
	"notes.latent": `{"tools": [{"type": "function", "name": "draft", "parameters": {"type": "object",
		"properties": {"_output": {"type": "object", "properties": {"text": {"type": "string"}}}, "topic": {"type": "string"}}}}]}`,
}

// bookEditor is the agent file of § 5.1 (JSONC, a triple-quoted prompt),
// with modelKey m1.
const bookEditor = `{ "key": "bookEditor", "name": "Book editor", "mode": "REACT", "modelConfig": {"modelKey": "m1"},
  "react": {"systemPrompt": """You edit a Markdown book through cursors, pointers and edit operations.""", "maxSteps": 16},
  "toolConfig": {"backends": ["create_keyword_cursor", "create_targets", "replace_text"], "frontends": ["ask_user"],
                 "actions": [], "latents": [], "delegates": ["run_cursor_agent", "rewrite_paragraph"]},
  "protocol": {
    "outputSchema": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
    "inputSchema": null,      // set when the agent serves as a delegate
    "outputText": "answer",   // string field of output streamed as the content block
    "context": [{"type": "data", "kind": "styleGuide", "provider": "book.styleGuide"},
                {"type": "data", "kind": "characters", "provider": "book.characters"},
                {"type": "data", "kind": "glossary", "provider": "book.glossary"}],
    "limits": {"maxTurns": 16, "maxParallel": 4, "maxDelegateDepth": 3},
    "responseFormat": "auto", "reasoningField": "_reasoningForCall", "repairRetries": 1, "errorWindow": 20,
    "unpathedResults": "log", "approval": {"requestedScopes": "ask", "timeoutMs": 300000},
    "guard": {"minMeanWeight": 30, "tools": ["replace_text", "rewrite_paragraph"], "onNoVotes": "allow", "disagreementSpread": 50}},
  "advisors": [{"id": "editGate", "on": "request", "role": "…", "scopes": ["input", "†state.search"],
                "schema": {"type": "object", "properties": {"thought": {"type": "string"}}, "required": ["thought"]},
                "isInstanced": false, "weight": 1}] }`

// cursorAgent is the protocol agent run_cursor_agent delegates to.
const cursorAgent = `{"key": "cursorAgent", "name": "Cursor", "mode": "REACT", "modelConfig": {"modelKey": "m1"},
	"react": {"systemPrompt": "Scan."}, "protocol": {"inputSchema": {"type": "object"}, "limits": {"maxTurns": 128}}}`

func loadProtocol(t *testing.T, agents map[string]string) (Dirs, *Snapshot, []Warning) {
	t.Helper()
	d := newDirs(t)
	write(t, d.Tools, protocolTools)
	write(t, d.Viewports, map[string]string{"ask_user.html": "<form>"})
	write(t, d.Agents, agents)
	s, ws := Load(d, testModels, protocolBackends)
	return d, s, ws
}

// pa returns a valid ONESHOT protocol agent file with more top-level
// fields; the protocol block is {} unless more writes one.
func pa(more string) string {
	switch {
	case more == "":
		return ag(`"protocol": {}`)
	case strings.Contains(more, `"protocol":`):
		return ag(more)
	}
	return ag(`"protocol": {}, ` + more)
}

func TestProtocolAgentOfSpecLoads(t *testing.T) {
	_, s, ws := loadProtocol(t, map[string]string{"book.json": bookEditor, "cursor.json": cursorAgent})
	require.Empty(t, ws, dump(ws))
	a, ok := s.Agent("bookEditor")
	require.True(t, ok)
	require.True(t, a.IsProtocol())
	require.Equal(t, "You edit a Markdown book through cursors, pointers and edit operations.", a.React.SystemPrompt)
	require.Equal(t, []string{"run_cursor_agent", "rewrite_paragraph"}, a.ToolConfig.Delegates)
	require.Empty(t, a.ToolConfig.Latents)
	require.Equal(t, []string{"create_keyword_cursor", "create_targets", "replace_text", "ask_user", "run_cursor_agent",
		"rewrite_paragraph"}, a.Tools)
	require.Equal(t, a.ToolConfig, a.React.ToolConfig)

	p := a.Protocol
	require.Equal(t, `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`, string(p.OutputSchema))
	require.Nil(t, p.InputSchema)
	require.Equal(t, "answer", p.OutputText)
	require.Len(t, p.Context, 3)
	require.Equal(t, `{"type":"data","kind":"styleGuide","provider":"book.styleGuide"}`, string(p.Context[0]))
	require.Equal(t, `{"type":"data","kind":"glossary","provider":"book.glossary"}`, string(p.Context[2]))
	require.Equal(t, ProtocolLimits{MaxTurns: 16, MaxParallel: 4, MaxDelegateDepth: 3}, p.Limits)
	require.Equal(t, "auto", p.ResponseFormat)
	require.Equal(t, "_reasoningForCall", p.ReasoningField)
	require.False(t, p.ReasoningOff)
	require.Equal(t, 1, *p.RepairRetries)
	require.Equal(t, 20, *p.ErrorWindow)
	require.Equal(t, "log", p.UnpathedResults)
	require.Equal(t, ProtocolApproval{RequestedScopes: "ask", TimeoutMs: 300000}, p.Approval)
	require.Equal(t, 30.0, p.Guard.MinMeanWeight)
	require.Equal(t, []string{"replace_text", "rewrite_paragraph"}, p.Guard.Tools)
	require.Equal(t, "allow", p.Guard.OnNoVotes)
	require.Equal(t, 50.0, *p.Guard.DisagreementSpread)

	require.Len(t, a.Advisors, 1)
	require.Equal(t, `{"id":"editGate","on":"request","role":"…","scopes":["input","†state.search"],`+
		`"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]},"isInstanced":false,"weight":1}`,
		string(a.Advisors[0]))
	msgs, err := a.AdvisorMessages()
	require.NoError(t, err)
	folded, errs := agentctx.Context(msgs).Advisors()
	require.Empty(t, errs)
	require.Len(t, folded, 1)
	require.Equal(t, "editGate", folded[0].ID)
	require.Equal(t, "request", folded[0].On)
	require.Equal(t, []string{"input", "†state.search"}, folded[0].Scopes)

	c, _ := s.Agent("cursorAgent")
	require.Equal(t, `{"type":"object"}`, string(c.Protocol.InputSchema))
	require.Nil(t, c.Protocol.OutputSchema)
	require.Nil(t, c.Advisors)
}

func TestProtocolBlockDefaults(t *testing.T) {
	_, s, ws := loadProtocol(t, map[string]string{"a.json": pa("")})
	require.Empty(t, ws, dump(ws))
	a, _ := s.Agent("a")
	require.Equal(t, &ProtocolBlock{}, a.Protocol, "not written: zero values and nil pointers")
	require.Equal(t, ToolChoiceNone, a.ToolChoice, "the mode default")

	plain, _ := loadOne(t, ag(""))
	require.False(t, plain.IsProtocol())
}

// loadOne loads one agent file x.json with the protocol tools.
func loadOne(t *testing.T, content string) (AgentDef, []Warning) {
	t.Helper()
	_, s, ws := loadProtocol(t, map[string]string{"x.json": content})
	a, ok := s.Agent("x")
	require.True(t, ok, dump(ws))
	return a, ws
}

func TestProtocolBlockValues(t *testing.T) {
	a, ws := loadOne(t, pa(`"toolConfig": {"backends": ["search"]}, "protocol": {"responseFormat": "JSON_Schema", "reasoningField": "_why", "repairRetries": 0,
		"errorWindow": 0, "unpathedResults": "Drop", "approval": {"requestedScopes": "AUTO"},
		"guard": {"disagreementSpread": 0, "onNoVotes": "DENY", "tools": ["Replace_Text", "replace_text"]}}`))
	p := a.Protocol
	require.Equal(t, "json_schema", p.ResponseFormat)
	require.Equal(t, "_why", p.ReasoningField)
	require.False(t, p.ReasoningOff)
	require.Equal(t, 0, *p.RepairRetries, "0 is a value, not the default")
	require.Equal(t, 0, *p.ErrorWindow)
	require.Equal(t, "drop", p.UnpathedResults)
	require.Equal(t, "auto", p.Approval.RequestedScopes)
	require.Equal(t, "deny", p.Guard.OnNoVotes)
	require.Equal(t, 0.0, *p.Guard.DisagreementSpread)
	require.Equal(t, []string{"replace_text"}, p.Guard.Tools)
	require.Len(t, ws, 1, dump(ws))
	requireWarning(t, ws, a.File, "protocol.guard.tools", `"replace_text" is not a tool of this agent`)

	off, _ := loadOne(t, pa(`"protocol": {"reasoningField": ""}`))
	require.True(t, off.Protocol.ReasoningOff, `"" turns reasoning off`)
	require.Empty(t, off.Protocol.ReasoningField)
	absent, _ := loadOne(t, pa(`"protocol": {"reasoningField": null}`))
	require.False(t, absent.Protocol.ReasoningOff, "null is not written")
}

func TestProtocolToolChoiceIgnored(t *testing.T) {
	for _, choice := range []string{"REQUIRED", "sometimes"} {
		a, ws := loadOne(t, pa(`"toolChoice": "`+choice+`", "toolConfig": {"backends": ["search"]}`))
		requireWarning(t, ws, a.File, "toolChoice", "ignored")
		require.Equal(t, ToolChoiceAuto, a.ToolChoice, "the mode default")
	}
}

func TestProtocolUnknownFieldsWarn(t *testing.T) {
	a, ws := loadOne(t, pa(`"protocol": {"limit": {}}, "advisors": [{"id": "a", "persona": "p", "scope": []}]`))
	requireWarning(t, ws, a.File, "protocol.limit", "unknown field")
	requireWarning(t, ws, a.File, "advisors[0].scope", "unknown field")
	require.Len(t, a.Advisors, 1)
}

// A schema's property names are data, not settings: "apiKey" in an output
// schema does not reject the agent (it does anywhere else).
func TestProtocolSchemasMayNameSecrets(t *testing.T) {
	a, ws := loadOne(t, pa(`"protocol": {"outputSchema": {"type": "object", "properties": {"apiKey": {"type": "string"}}},
		"context": [{"type": "data", "kind": "k", "data": {"x": 1}, "schema": {"properties": {"base_url": {}}}}]},
		"advisors": [{"id": "a", "answer": {"type": "object", "properties": {"apiKey": {}}}}]`))
	require.Empty(t, rejected(ws))
	require.Contains(t, string(a.Protocol.OutputSchema), "apiKey")
}

// TestVectorA2_AdvisorAliasesLoad: persona and answer are accepted in agent
// files and normalised by AdvisorMessages.
func TestVectorA2_AdvisorAliasesLoad(t *testing.T) {
	a, ws := loadOne(t, pa(`"advisors": [{"id": "riskAnalyst", "on": "request", "persona": "Risk lens"},
		{"kind": "advisor", "id": "riskAnalyst", "answer": {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}}]`))
	require.Empty(t, ws, dump(ws))
	msgs, err := a.AdvisorMessages()
	require.NoError(t, err)
	folded, errs := agentctx.Context(msgs).Advisors()
	require.Empty(t, errs)
	require.Len(t, folded, 1)
	require.Equal(t, "Risk lens", folded[0].Role)
	require.Equal(t, "request", folded[0].On)
	require.NotNil(t, folded[0].Schema)
}

// TestVectorA3b_RedeclaredWithoutOn: a second declaration without `on`
// patches the role and inherits `on`; re-sending the same `on` is no
// conflict either.
func TestVectorA3b_RedeclaredWithoutOn(t *testing.T) {
	a, ws := loadOne(t, pa(`"advisors": [{"id": "riskAnalyst", "on": "request", "persona": "Risk lens"},
		{"id": "riskAnalyst", "role": "New lens"}, {"id": "riskAnalyst", "on": "request"},
		{"id": "legal", "on": null}, {"id": "legal", "on": "finish"}]`))
	require.Empty(t, ws, dump(ws))
	require.Len(t, a.Advisors, 5, "entries are kept as written; the runtime folds them")
	msgs, err := a.AdvisorMessages()
	require.NoError(t, err)
	folded, errs := agentctx.Context(msgs).Advisors()
	require.Empty(t, errs)
	require.Equal(t, "New lens", folded[0].Role)
	require.Equal(t, "request", folded[0].On)
	require.Equal(t, "finish", folded[1].On, "on may go from unset to a value once")
}

// TestProtocolRejections: one case per protocol load rule (§ 5.1, vector
// A3a for the on conflict); each rejects the agent with one warning naming
// the field.
func TestProtocolRejections(t *testing.T) {
	tests := []struct{ name, content, field string }{
		// Keys that need a protocol block.
		{"advisors without protocol", ag(`"advisors": [{"id": "a"}]`), "advisors"},
		{"empty advisors without protocol", ag(`"advisors": []`), "advisors"},
		{"latents without protocol", ag(`"toolConfig": {"latents": []}`), "toolConfig.latents"},
		{"stage delegates without protocol", ag(`"plain": {"systemPrompt": "p", "toolConfig": {"delegates": ["rewrite_paragraph"]}}`),
			"plain.toolConfig.delegates"},
		{"PLAN_EXECUTE with protocol", pe(`"protocol": {}`), "protocol"},
		// Types.
		{"protocol not an object", ag(`"protocol": 5`), "protocol"},
		{"advisors not an array", pa(`"advisors": {"id": "a"}`), "advisors"},
		{"context not an array", pa(`"protocol": {"context": {}}`), "protocol.context"},
		{"limits wrong type", pa(`"protocol": {"limits": {"maxTurns": "many"}}`), "protocol.limits.maxTurns"},
		{"guard tools wrong type", pa(`"protocol": {"guard": {"tools": "all"}}`), "protocol.guard.tools"},
		// Values.
		{"outputSchema not an object", pa(`"protocol": {"outputSchema": "text"}`), "protocol.outputSchema"},
		{"outputSchema invalid", pa(`"protocol": {"outputSchema": {"type": 5}}`), "protocol.outputSchema"},
		{"inputSchema not an object", pa(`"protocol": {"inputSchema": [1]}`), "protocol.inputSchema"},
		{"outputText not a property", pa(`"protocol": {"outputText": "text", "outputSchema": {"type": "object", "properties": {"answer": {}}}}`),
			"protocol.outputText"},
		{"outputText not a string property", pa(`"protocol": {"outputText": "n", "outputSchema": {"properties": {"n": {"type": "number"}}}}`),
			"protocol.outputText"},
		{"negative maxTurns", pa(`"protocol": {"limits": {"maxTurns": -1}}`), "protocol.limits.maxTurns"},
		{"negative repairRetries", pa(`"protocol": {"repairRetries": -1}`), "protocol.repairRetries"},
		{"negative errorWindow", pa(`"protocol": {"errorWindow": -2}`), "protocol.errorWindow"},
		{"negative timeoutMs", pa(`"protocol": {"approval": {"timeoutMs": -5}}`), "protocol.approval.timeoutMs"},
		{"responseFormat unknown", pa(`"protocol": {"responseFormat": "xml"}`), "protocol.responseFormat"},
		{"reasoningField unknown", pa(`"protocol": {"reasoningField": "thinking"}`), "protocol.reasoningField"},
		{"unpathedResults unknown", pa(`"protocol": {"unpathedResults": "keep"}`), "protocol.unpathedResults"},
		{"requestedScopes unknown", pa(`"protocol": {"approval": {"requestedScopes": "maybe"}}`), "protocol.approval.requestedScopes"},
		{"onNoVotes unknown", pa(`"protocol": {"guard": {"onNoVotes": "warn"}}`), "protocol.guard.onNoVotes"},
		{"minMeanWeight out of range", pa(`"protocol": {"guard": {"minMeanWeight": 120}}`), "protocol.guard.minMeanWeight"},
		{"disagreementSpread out of range", pa(`"protocol": {"guard": {"disagreementSpread": -1}}`), "protocol.guard.disagreementSpread"},
		{"guard tool blank", pa(`"protocol": {"guard": {"tools": [" "]}}`), "protocol.guard.tools[0]"},
		{"calls unknown", pa(`"protocol": {"approval": {"calls": "deny"}}`), "protocol.approval.calls"},
		{"confirmTools wrong type", pa(`"protocol": {"approval": {"confirmTools": "replace_text"}}`), "protocol.approval.confirmTools"},
		{"confirm tool blank", pa(`"protocol": {"approval": {"confirmTools": ["replace_text", ""]}}`), "protocol.approval.confirmTools[1]"},
		{"confirm tool latent", pa(`"toolConfig": {"latents": ["draft"]}, "protocol": {"approval": {"confirmTools": ["Draft"]}}`),
			"protocol.approval.confirmTools[0]"},
		// Context entries.
		{"context entry not an object", pa(`"protocol": {"context": ["hi"]}`), "protocol.context[0]"},
		{"context entry of unknown type", pa(`"protocol": {"context": [{"type": "system", "message": "m"}, {"type": "memo"}]}`),
			"protocol.context[1]"},
		{"context entry with both value forms", pa(`"protocol": {"context": [{"type": "state", "state": {"a": 1}, "b": 2}]}`),
			"protocol.context[0]"},
		{"provider blank", pa(`"protocol": {"context": [{"type": "data", "kind": "k", "provider": ""}]}`), "protocol.context[0].provider"},
		{"provider not a string", pa(`"protocol": {"context": [{"type": "data", "provider": 3}]}`), "protocol.context[0].provider"},
		{"provider of a system message", pa(`"protocol": {"context": [{"type": "system", "provider": "p"}]}`), "protocol.context[0].type"},
		{"provider with a value", pa(`"protocol": {"context": [{"type": "data", "kind": "k", "provider": "p", "data": {"a": 1}}]}`),
			"protocol.context[0]"},
		// Advisors.
		{"advisor not an object", pa(`"advisors": ["a"]`), "advisors[0]"},
		{"advisor without id", pa(`"advisors": [{"role": "r"}]`), "advisors[0].id"},
		{"advisor id not a string", pa(`"advisors": [{"id": 7}]`), "advisors[0].id"},
		{"advisor of another type", pa(`"advisors": [{"type": "data", "id": "a"}]`), "advisors[0].type"},
		{"role and persona", pa(`"advisors": [{"id": "a", "role": "r", "persona": "p"}]`), "advisors[0].persona"},
		{"schema and answer", pa(`"advisors": [{"id": "a", "schema": {}, "answer": {}}]`), "advisors[0].answer"},
		{"on unknown", pa(`"advisors": [{"id": "a", "on": "always"}]`), "advisors[0].on"},
		{"on not a string", pa(`"advisors": [{"id": "a", "on": true}]`), "advisors[0].on"},
		{"A3a on conflict", pa(`"advisors": [{"id": "riskAnalyst", "on": "request", "persona": "Risk lens"},
			{"id": "other", "on": "start"}, {"id": "riskAnalyst", "on": "finish"}]`), "advisors[2].on"},
		{"answer schema not an object", pa(`"advisors": [{"id": "a", "schema": "text"}]`), "advisors[0].schema"},
		{"answer schema invalid", pa(`"advisors": [{"id": "a", "answer": {"type": 1}}]`), "advisors[0].answer"},
		{"answer property calls", pa(`"advisors": [{"id": "a", "schema": {"properties": {"calls": {}}}}]`),
			"advisors[0].schema.properties.calls"},
		{"answer property _instance", pa(`"advisors": [{"id": "a", "schema": {"properties": {"_instance": {}}}}]`),
			"advisors[0].schema.properties._instance"},
		{"scopes not an array", pa(`"advisors": [{"id": "a", "scopes": "input"}]`), "advisors[0].scopes"},
		{"internal scope", pa(`"advisors": [{"id": "a", "scopes": ["input", "_grants"]}]`), "advisors[0].scopes[1]"},
		{"system scope", pa(`"advisors": [{"id": "a", "scopes": ["system"]}]`), "advisors[0].scopes[0]"},
		{"bad path scope", pa(`"advisors": [{"id": "a", "scopes": ["†state..x"]}]`), "advisors[0].scopes[0]"},
		{"expression scope", pa(`"advisors": [{"id": "a", "scopes": ["†state.a || †state.b"]}]`), "advisors[0].scopes[0]"},
		{"isInstanced not a boolean", pa(`"advisors": [{"id": "a", "isInstanced": "yes"}]`), "advisors[0].isInstanced"},
		{"negative weight", pa(`"advisors": [{"id": "a", "weight": -1}]`), "advisors[0].weight"},
		{"apiKey in an advisor", pa(`"advisors": [{"id": "a", "apiKey": "sk"}]`), "advisors[0].apiKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, s, ws := loadProtocol(t, map[string]string{"x.json": tt.content})
			require.Empty(t, s.Agents())
			rs := rejected(ws)
			require.Len(t, rs, 1, dump(ws))
			require.Equal(t, KindAgent, rs[0].Kind)
			require.Equal(t, filepath.Join(d.Agents, "x.json"), rs[0].File)
			require.Equal(t, tt.field, rs[0].Field, rs[0].Reason)
			require.NotEmpty(t, rs[0].Reason)
		})
	}
}

// Edit approval (aite extension): protocol.approval.confirmTools and calls.
func TestProtocolConfirmTools(t *testing.T) {
	a, ws := loadOne(t, pa(`"toolConfig": {"backends": ["replace_text", "create_targets"], "delegates": ["rewrite_paragraph"]},
		"protocol": {"approval": {"confirmTools": ["Replace_Text", " replace_text", "rewrite_paragraph", "delete_item"], "calls": "ASK"}}`))
	require.Equal(t, ProtocolApproval{ConfirmTools: []string{"replace_text", "rewrite_paragraph", "delete_item"}, Calls: "ask"},
		a.Protocol.Approval, "lowercased, de-duplicated, enum lowercased")
	require.Len(t, ws, 1, dump(ws))
	requireWarning(t, ws, a.File, "protocol.approval.confirmTools", `"delete_item" is not a tool of this agent`)

	auto, ws := loadOne(t, pa(`"protocol": {"approval": {"calls": "auto"}}`))
	require.Empty(t, ws, dump(ws))
	require.Equal(t, ProtocolApproval{Calls: "auto"}, auto.Protocol.Approval)

	_, _, ws = loadProtocol(t, map[string]string{"x.json": pa(`"toolConfig": {"latents": ["draft"]}, "protocol": {"approval": {"confirmTools": ["draft"]}}`)})
	rs := rejected(ws)
	require.Len(t, rs, 1, dump(ws))
	require.Contains(t, rs[0].Reason, "latent tool")
}

func TestProtocolRejectionReasons(t *testing.T) {
	for content, reason := range map[string]string{
		pe(`"protocol": {}`):                       "PLAN_EXECUTE agents cannot be protocol agents",
		ag(`"toolConfig": {"latents": ["draft"]}`): "need a protocol block",
		pa(`"advisors": [{"id": "a", "on": "start"}, {"id": "a", "on": "finish"}]`): `on is "start", cannot become "finish"`,
		pa(`"advisors": [{"id": "a", "schema": {}, "answer": {}}]`):                 "both schema and its alias answer",
	} {
		_, _, ws := loadProtocol(t, map[string]string{"x.json": content})
		rs := rejected(ws)
		require.Len(t, rs, 1, dump(ws))
		require.Contains(t, rs[0].Reason, reason)
	}
}

func TestProtocolToolKindsInAgents(t *testing.T) {
	d, s, ws := loadProtocol(t, map[string]string{
		// An ordinary agent cannot enable .latent and .delegate tools.
		"plain.json": ag(`"key": "plain", "toolConfig": {"backends": ["search", "draft"], "actions": ["run_cursor_agent"]}`),
		// A protocol agent can, under any list (a kind mismatch is kept with a warning).
		"proto.json": pa(`"key": "proto", "toolConfig": {"latents": ["DRAFT"], "backends": ["rewrite_paragraph"]}`),
	})
	plain, ok := s.Agent("plain")
	require.True(t, ok, dump(ws))
	require.Equal(t, []string{"search"}, plain.Tools)
	file := filepath.Join(d.Agents, "plain.json")
	requireWarning(t, ws, file, "toolConfig.backends[1]", `"draft" is a latent tool: only protocol agents`)
	requireWarning(t, ws, file, "toolConfig.actions[0]", `"run_cursor_agent" is a delegate tool: only protocol agents`)

	proto, _ := s.Agent("proto")
	require.Equal(t, []string{"draft"}, proto.ToolConfig.Latents)
	require.Equal(t, []string{"rewrite_paragraph", "draft"}, proto.Tools)
	requireWarning(t, ws, filepath.Join(d.Agents, "proto.json"), "toolConfig.backends[0]",
		`"rewrite_paragraph" is a delegate tool, listed with the backend tools; kept`)
}

// DG1: a delegate tool whose `_delegate` names no protocol agent is dropped
// from the agents that list it.
func TestProtocolDelegateTargets(t *testing.T) {
	d, s, ws := loadProtocol(t, map[string]string{
		"editor.json": pa(`"key": "editor", "plain": {"systemPrompt": "p", "toolConfig": {"delegates": ["run_cursor_agent", "rewrite_paragraph"]}}`),
	})
	a, ok := s.Agent("editor")
	require.True(t, ok, dump(ws))
	require.Equal(t, []string{"rewrite_paragraph"}, a.Tools, "anonymous needs no agent")
	require.Equal(t, []string{"rewrite_paragraph"}, a.Plain.ToolConfig.Delegates)
	requireWarning(t, ws, filepath.Join(d.Agents, "editor.json"), "", `runs agent "cursorAgent", but no agent has that key; dropped`)

	// The target exists but is no protocol agent.
	d, s, ws = loadProtocol(t, map[string]string{
		"editor.json": pa(`"key": "editor", "toolConfig": {"delegates": ["run_cursor_agent"]}`),
		"cursor.json": ag(`"key": "cursorAgent"`),
	})
	a, _ = s.Agent("editor")
	require.Empty(t, a.Tools)
	require.Empty(t, a.ToolConfig.Delegates)
	requireWarning(t, ws, filepath.Join(d.Agents, "editor.json"), "", "that agent has no protocol block")

	// A protocol target loaded after the caller (file order) is found.
	_, s, ws = loadProtocol(t, map[string]string{
		"a.json": pa(`"key": "editor", "toolConfig": {"delegates": ["run_cursor_agent"]}`),
		"z.json": cursorAgent,
	})
	a, _ = s.Agent("editor")
	require.Equal(t, []string{"run_cursor_agent"}, a.Tools, dump(ws))
}

func TestAdvisorMessagesOfForeignDef(t *testing.T) {
	a := AgentDef{Advisors: []json.RawMessage{json.RawMessage(`{"role": "r"}`)}}
	_, err := a.AdvisorMessages()
	require.ErrorContains(t, err, "advisors[0]")
}
