package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/llm"
)

// a1Wire is the wire schema of the A1 setup (§2.2 form): advisor riskAnalyst
// with a `thought`, latent tools deploy, rollback and delay.
const a1Wire = `{"type":"object","additionalProperties":false,"required":["advisors","calls","output"],"properties":{` +
	`"advisors":{"type":"array","items":{"anyOf":[{"type":"object","additionalProperties":false,"required":["id","thought","calls"],` +
	`"properties":{"id":{"type":"string","enum":["riskAnalyst"]},"thought":{"type":"string"},` +
	`"calls":{"type":"string","description":"JSON object: tool name -> confidence 0..100"}}}]}},` +
	`"calls":{"type":"array","items":{"anyOf":[` +
	`{"type":"object","additionalProperties":false,"required":["_tool","_reasoningForCall","_output"],"properties":{"_tool":{"type":"string","enum":["deploy"]},"_reasoningForCall":{"type":"string"},"_output":{"type":"object","additionalProperties":false,"required":["ok"],"properties":{"ok":{"type":"boolean"}}}}},` +
	`{"type":"object","additionalProperties":false,"required":["_tool","_reasoningForCall","_output"],"properties":{"_tool":{"type":"string","enum":["rollback"]},"_reasoningForCall":{"type":"string"},"_output":{"type":"object","additionalProperties":false,"required":["ok"],"properties":{"ok":{"type":"boolean"}}}}},` +
	`{"type":"object","additionalProperties":false,"required":["_tool","_reasoningForCall","_output"],"properties":{"_tool":{"type":"string","enum":["delay"]},"_reasoningForCall":{"type":"string"},"_output":{"type":"object","additionalProperties":false,"required":["ok"],"properties":{"ok":{"type":"boolean"}}}}}]}},` +
	`"output":{"anyOf":[{"type":"object"},{"type":"null"}]}}}`

// a1Solution is the fake model's A1 reply.
const a1Solution = `{"advisors":[{"id":"riskAnalyst","thought":"Unit tests pass, integration tests missing; regression risk is high.",` +
	`"calls":"{\"deploy\":10,\"rollback\":5,\"delay\":95}"}],` +
	`"calls":[{"_tool":"delay","_reasoningForCall":"Risk analyst strongly advises waiting.","_output":{"ok":true}}],"output":null}`

// a1Comp builds the A1 composition by hand.
func a1Comp(format string) *Composition {
	ok := agentctx.NewObject("type", "object", "properties", agentctx.NewObject("ok", agentctx.NewObject("type", "boolean")))
	var tools []*Tool
	for _, name := range []string{"deploy", "rollback", "delay"} {
		tools = append(tools, &Tool{Name: name, Kind: KindLatent, Output: ok, HasOutput: true})
	}
	advisors := []*ActiveAdvisor{{Advisor: agentctx.Advisor{ID: "riskAnalyst", On: "request",
		Role: "Assess the regression risk of a release.", Scopes: []string{"†state.deploymentHistory"}, Weight: 1}, Activation: Required}}
	co := comp(format, 2, 1, tools, advisors, nil)
	co.WireJSON = []byte(a1Wire)
	return co
}

// TestVectorX2_RespondToolRequest: with structuredOutput "tool" the request
// has exactly one tool `respond` (strict, wire schema), a forced tool choice,
// no parallel calls and no agent tools; extraction returns the arguments (X2).
func TestVectorX2_RespondToolRequest(t *testing.T) {
	co := a1Comp(FormatRespondTool)
	req := BuildRequest(co, "SYS", "USER")
	require.Equal(t, []llm.Message{{Role: llm.RoleSystem, Content: "SYS"}, {Role: llm.RoleUser, Content: "USER"}}, req.Messages)
	require.Len(t, req.Tools, 1)
	tool := req.Tools[0]
	require.Equal(t, "respond", tool.Name)
	require.Equal(t, "Return your complete decision for this turn.", tool.Description)
	require.True(t, tool.Strict)
	require.Equal(t, a1Wire, string(tool.Parameters), "the wire schema is sent byte for byte")
	require.Equal(t, llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "respond"}, req.ToolChoice)
	require.NotNil(t, req.ParallelToolCalls)
	require.False(t, *req.ParallelToolCalls)
	require.Nil(t, req.ResponseFormat)
	require.Empty(t, req.Model, "the model is left to the caller")
	for _, name := range []string{"deploy", "rollback", "delay"} {
		require.NotContains(t, []string{tool.Name}, name, "agent tools are never native tools")
	}
	// The request does not share the composition's bytes.
	tool.Parameters[0] = 'X'
	require.Equal(t, byte('{'), co.WireJSON[0])

	raw, warnings, err := Extract(co, llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "respond", Arguments: a1Solution}}})
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Equal(t, a1Solution, string(raw))
	require.True(t, json.Valid(raw))
}

// TestExtractRespondTool covers extra calls, a missing call and empty
// arguments.
func TestExtractRespondTool(t *testing.T) {
	co := a1Comp(FormatRespondTool)
	raw, warnings, err := Extract(co, llm.Message{ToolCalls: []llm.ToolCall{
		{Name: "deploy", Arguments: `{}`},
		{Name: "respond", Arguments: " {\"calls\":[],\"output\":{}} "},
		{Name: "respond", Arguments: `{"calls":[]}`},
	}})
	require.NoError(t, err)
	require.Equal(t, `{"calls":[],"output":{}}`, string(raw), "the first respond call wins")
	require.Len(t, warnings, 1)
	require.Equal(t, WarnExtraRespondCalls, warnings[0].Code)
	require.Contains(t, warnings[0].Message, "2 extra")

	_, _, err = Extract(co, llm.Message{Content: a1Solution})
	require.ErrorContains(t, err, `the reply has no call of the tool "respond"`)
	_, _, err = Extract(co, llm.Message{ToolCalls: []llm.ToolCall{{Name: "delay", Arguments: `{}`}}})
	require.ErrorContains(t, err, "it called delay")
	_, _, err = Extract(co, llm.Message{ToolCalls: []llm.ToolCall{{Name: "respond", Arguments: "  "}}})
	require.ErrorContains(t, err, "no arguments")
}

// TestJSONSchemaRequest: json_schema sends a strict response format named
// solution and no tools; the content is the solution, fenced or not.
func TestJSONSchemaRequest(t *testing.T) {
	co := a1Comp(FormatJSONSchema)
	req := BuildRequest(co, "SYS", "USER")
	require.Empty(t, req.Tools)
	require.Equal(t, llm.ToolChoice{}, req.ToolChoice)
	require.Nil(t, req.ParallelToolCalls)
	require.NotNil(t, req.ResponseFormat)
	require.Equal(t, llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "solution", Strict: true,
		Schema: json.RawMessage(a1Wire)}, *req.ResponseFormat)

	for _, content := range []string{
		a1Solution,
		"\n  " + a1Solution + "\n",
		"```json\n" + a1Solution + "\n```",
		"```\n" + a1Solution + "\n```",
		"```JSON " + a1Solution + "```",
	} {
		raw, warnings, err := Extract(co, llm.Message{Content: content})
		require.NoError(t, err, content)
		require.Empty(t, warnings)
		require.Equal(t, a1Solution, string(raw), content)
	}
	// No extraction from prose in json_schema mode: the text is handed on as
	// it is and fails to parse later.
	raw, _, err := Extract(co, llm.Message{Content: "Here: " + a1Solution})
	require.NoError(t, err)
	require.Equal(t, "Here: "+a1Solution, string(raw))
	_, _, err = Extract(co, llm.Message{Content: "  "})
	require.ErrorContains(t, err, "no content")
}

// TestPromptFallback: prompt mode sends no tools and no response format,
// prints the wire schema at the end of the system message and extracts the
// single JSON object from prose.
func TestPromptFallback(t *testing.T) {
	co := a1Comp(FormatPrompt)
	c := ctx(t, `{"type":"system","message":"You decide releases."}`, `{"type":"input","input":{"release":"1.4"}}`)
	system, user := Render(co, c)
	require.True(t, strings.HasSuffix(system, "\n\nReply with one JSON object matching this schema: "+a1Wire))
	require.Contains(t, system, "Reply with that JSON object only.")
	req := BuildRequest(co, system, user)
	require.Empty(t, req.Tools)
	require.Nil(t, req.ResponseFormat)
	require.Nil(t, req.ParallelToolCalls)
	require.Equal(t, llm.ToolChoice{}, req.ToolChoice)

	prose := "Let me think. The risk is high.\n```json\n" + a1Solution + "\n```\nI hope this {helps}."
	raw, warnings, err := Extract(co, llm.Message{Content: prose})
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.JSONEq(t, a1Solution, string(raw))
	_, _, err = Extract(co, llm.Message{Content: "I cannot decide."})
	require.ErrorContains(t, err, "no JSON object")

	// An unresolved format falls back to prompt everywhere.
	co.Format = FormatAuto
	req = BuildRequest(co, system, user)
	require.Empty(t, req.Tools)
	require.Nil(t, req.ResponseFormat)
	_, _, err = Extract(co, llm.Message{Content: prose})
	require.NoError(t, err)
}

// TestNilComposition: bad input gives errors or defaults, never a panic.
func TestNilComposition(t *testing.T) {
	system, user := Render(nil, nil)
	require.Contains(t, system, "# Solution protocol")
	require.Equal(t, emptyUser, user)
	req := BuildRequest(nil, system, user)
	require.Len(t, req.Messages, 2)
	_, _, err := Extract(nil, llm.Message{})
	require.Error(t, err)
}

// notImplemented runs f and skips the test when it hits another helper's
// panicking stub; any other panic propagates.
func notImplemented(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(string); ok && s == "not implemented" {
				t.Skip("waits on helper A (Normalize/Compose/Parse not implemented yet)")
			}
			panic(r)
		}
	}()
	f()
}

// renderTestRegistry knows no activity, tool or agent: every tool is latent.
type renderTestRegistry struct{}

func (renderTestRegistry) Activity(string) (Activity, bool) { return nil, false }
func (renderTestRegistry) Tool(string) (ToolDecl, bool)     { return ToolDecl{}, false }
func (renderTestRegistry) Agent(string) (*Agent, bool)      { return nil, false }

// a1Agent is the A1 setup as an agent; delay writes at †state.last (X3).
func a1Agent(t *testing.T, structured string) *Agent {
	t.Helper()
	adv, err := agentctx.ParseMessage([]byte(`{"type":"advisor","id":"riskAnalyst","on":"request",` +
		`"role":"Assess the regression risk of a release.","scopes":["†state.deploymentHistory"],` +
		`"schema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}`))
	require.NoError(t, err)
	okOut := `"_output":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
	return &Agent{
		Key:          "releaseManager",
		SystemPrompt: "You decide whether to release.",
		Tools: []ToolDecl{
			{Name: "deploy", FileKind: "latent", Parameters: obj(t, `{"type":"object","properties":{`+okOut+`}}`)},
			{Name: "rollback", FileKind: "latent", Parameters: obj(t, `{"type":"object","properties":{`+okOut+`}}`)},
			{Name: "delay", FileKind: "latent", Parameters: obj(t, `{"type":"object","properties":{"_outputPath":{"const":"†state.last"},`+okOut+`}}`)},
		},
		Advisors: []agentctx.Message{adv},
		Model:    ModelInfo{Key: "m", StructuredOutput: structured, SupportsTools: true},
	}
}

// TestVectorX3_FrozenPrefixStable: over two turns of the A1 setup (delay
// writing †state.last) the system message and the frozen input prefix of
// the user message are byte-identical while the derived tier differs (X3).
// Needs Compose (helper A); skipped while it is a stub.
func TestVectorX3_FrozenPrefixStable(t *testing.T) {
	a := a1Agent(t, "json_schema")
	base := ctx(t,
		`{"type":"system","message":"You decide whether to release."}`,
		`{"type":"data","kind":"deploymentHistory","data":{"last":"2026-01-02 rollback"}}`,
		`{"type":"input","input":{"release":"1.4","tests":{"unit":"pass","integration":"missing"}}}`,
	)
	var sys1, user1, sys2, user2 string
	notImplemented(t, func() {
		require.NoError(t, a.Normalize())
		t1 := TurnInfo{Turn: 1, MaxTurns: 16, FirstOfChat: true, RunStart: len(base)}
		comp1, err := Compose(a, base, t1, renderTestRegistry{})
		require.NoError(t, err)
		sys1, user1 = Render(comp1, base)

		c2 := append(base[:len(base):len(base)], ctx(t,
			`{"type":"advice","id":"riskAnalyst","turn":1,"opinion":{"thought":"Risk is high."},"weights":{"deploy":10,"rollback":5,"delay":95}}`)...)
		c2 = append(c2, write(t, "†state.last", agentctx.MethodSet, "", decode(t, `{"ok":true}`), 1, 0))
		t2 := TurnInfo{Turn: 2, MaxTurns: 16, RunStart: len(base)}
		comp2, err := Compose(a, c2, t2, renderTestRegistry{})
		require.NoError(t, err)
		sys2, user2 = Render(comp2, c2)
	})
	require.Equal(t, sys1, sys2, "system message byte-identical across turns")
	prefix := "## ¶input\n" + inputLine + "\n" + `{"release":"1.4","tests":{"unit":"pass","integration":"missing"}}`
	require.True(t, strings.HasPrefix(user1, prefix))
	require.True(t, strings.HasPrefix(user2, prefix))
	require.NotEqual(t, user1[len(prefix):], user2[len(prefix):], "derived tier differs")
	require.Contains(t, user2, "## ¶state\n{\"last\":{\"ok\":true}}")
	require.Contains(t, user2, "## advice of turn 1\nriskAnalyst: {\"thought\":\"Risk is high.\"}")
	require.Contains(t, sys1, "- delay: latent: no code runs; you perform it and write the result in _output; result → †state.last (set)")
}

// TestVectorX2_ParsedLikeA1: the respond-tool arguments parse to the same
// solution as A1's json_schema content (X2). Needs Compose and Parse
// (helper A); skipped while they are stubs.
func TestVectorX2_ParsedLikeA1(t *testing.T) {
	var viaSchema, viaTool *ParseResult
	var toolReq *llm.Request
	notImplemented(t, func() {
		c := ctx(t, `{"type":"input","input":{"release":"1.4"}}`)
		ti := TurnInfo{Turn: 1, MaxTurns: 16, FirstOfChat: true, RunStart: len(c)}
		for _, structured := range []string{"json_schema", "tool"} {
			a := a1Agent(t, structured)
			require.NoError(t, a.Normalize())
			co, err := Compose(a, c, ti, renderTestRegistry{})
			require.NoError(t, err)
			system, user := Render(co, c)
			req := BuildRequest(co, system, user)
			var reply llm.Message
			if structured == "tool" {
				require.Equal(t, FormatRespondTool, co.Format)
				toolReq = req
				reply = llm.Message{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "respond", Arguments: a1Solution}}}
			} else {
				require.Equal(t, FormatJSONSchema, co.Format)
				reply = llm.Message{Content: a1Solution}
			}
			raw, _, err := Extract(co, reply)
			require.NoError(t, err)
			res := Parse(co, raw)
			if structured == "tool" {
				viaTool = res
			} else {
				viaSchema = res
			}
		}
	})
	require.Len(t, toolReq.Tools, 1)
	require.Equal(t, "respond", toolReq.Tools[0].Name)
	require.NotNil(t, viaTool.Solution)
	require.Equal(t, viaSchema.Solution.Normalised, viaTool.Solution.Normalised)
	require.Len(t, viaTool.Solution.Calls, 1)
	require.Equal(t, "delay", viaTool.Solution.Calls[0].Tool)
}
