package agentdef

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLatentAndDelegateTools(t *testing.T) {
	d := newDirs(t)
	write(t, d.Tools, protocolTools)
	write(t, d.Tools, map[string]string{
		"bad.latent": `{"tools": [{"type": "function", "name": "no_output", "parameters": {"type": "object", "properties": {"x": {}}}},
			{"type": "function", "name": "no_params"},
			{"type": "function", "name": "output_text", "parameters": {"properties": {"_output": "text"}}}]}`,
		"bad.delegate": `{"tools": [{"type": "function", "name": "no_delegate", "parameters": {"type": "object", "properties": {"_output": {}}}},
			{"type": "function", "name": "not_const", "parameters": {"properties": {"_delegate": {"type": "string"}}}},
			{"type": "function", "name": "bad_key", "parameters": {"properties": {"_delegate": {"const": "a b"}}}}]}`,
		"search.latent": `{"tools": [{"type": "function", "name": "search", "parameters": {"properties": {"_output": {}}}}]}`,
	})
	s, ws := Load(d, testModels, protocolBackends)
	f := func(name string) string { return filepath.Join(d.Tools, name) }

	draft, ok := s.Tool("draft")
	require.True(t, ok, dump(ws))
	require.Equal(t, ToolLatent, draft.Kind)
	require.Equal(t, "latent", draft.Kind.ToolType())
	run, _ := s.Tool("run_cursor_agent")
	require.Equal(t, ToolDelegate, run.Kind)
	require.Equal(t, "delegate", run.Kind.ToolType())
	require.Equal(t, "cursorAgent", run.Delegate())
	rewrite, _ := s.Tool("rewrite_paragraph")
	require.Equal(t, "anonymous", rewrite.Delegate())
	require.Empty(t, draft.Delegate())

	for _, name := range []string{"no_output", "no_params", "output_text", "no_delegate", "not_const", "bad_key"} {
		_, ok := s.Tool(name)
		require.False(t, ok, name)
	}
	for _, c := range []struct{ file, field, reason string }{
		{"bad.latent", "tools[0].parameters.properties._output", "must declare _output"},
		{"bad.latent", "tools[1].parameters.properties._output", "must declare _output"},
		{"bad.latent", "tools[2].parameters.properties._output", "expected a JSON Schema"},
		{"bad.delegate", "tools[0].parameters.properties._delegate", "must declare _delegate"},
		{"bad.delegate", "tools[1].parameters.properties._delegate", `expected {"const": "<agentKey>"}`},
		{"bad.delegate", "tools[2].parameters.properties._delegate", `expected {"const": "<agentKey>"}`},
		{"search.latent", "tools[0].name", "takes the name of a built-in backend tool"},
	} {
		w := requireWarning(t, ws, f(c.file), c.field, c.reason)
		require.True(t, w.Rejected, w.String())
	}
}

func TestScopesDeclarations(t *testing.T) {
	d := newDirs(t)
	tool := func(name, scopes string) string {
		return `{"type": "function", "name": "` + name + `", "parameters": {"type": "object", "properties": {"_scopes": ` + scopes + `}}}`
	}
	write(t, d.Tools, map[string]string{"s.action": `{"tools": [` +
		tool("const_form", `{"const": ["state", "†input.user"]}`) + `,` +
		tool("empty_const", `{"const": []}`) + `,` +
		tool("requested", `{"type": "array", "items": {"enum": ["characters", "glossary"]}, "provisioned": ["input"]}`) + `,` +
		tool("requested_only", `{"items": {"enum": ["state"]}}`) + `,` +
		tool("internal", `{"const": ["_grants"]}`) + `,` +
		tool("system", `{"type": "array", "items": {"enum": ["system"]}}`) + `,` +
		tool("both", `{"const": [], "items": {"enum": []}}`) + `,` +
		tool("no_enum", `{"type": "array", "items": {}}`) + `,` +
		tool("not_array", `{"type": "string", "items": {"enum": ["state"]}}`) + `,` +
		tool("bad_provisioned", `{"items": {"enum": ["state"]}, "provisioned": [1]}`) + `,` +
		tool("neither", `{"type": "array"}`) + `,` +
		tool("bad_path", `{"const": ["†state."]}`) + `]}`,
		"plain.action": `{"tools": [{"type": "function", "name": "plain"}]}`,
	})
	s, ws := load(t, d)
	scopes := func(name string) ([]string, []string) {
		t.Helper()
		tl, ok := s.Tool(name)
		require.True(t, ok, "%s: %s", name, dump(ws))
		return tl.Scopes()
	}
	p, r := scopes("const_form")
	require.Equal(t, []string{"state", "†input.user"}, p)
	require.Equal(t, []string{}, r)
	p, r = scopes("empty_const")
	require.NotNil(t, p, "declared: non-nil even when empty (S4 variant b)")
	require.Empty(t, p)
	require.Empty(t, r)
	p, r = scopes("requested")
	require.Equal(t, []string{"input"}, p)
	require.Equal(t, []string{"characters", "glossary"}, r)
	p, r = scopes("requested_only")
	require.Equal(t, []string{}, p)
	require.Equal(t, []string{"state"}, r)
	p, r = scopes("plain")
	require.Nil(t, p, "no _scopes")
	require.Nil(t, r)

	file := filepath.Join(d.Tools, "s.action")
	for field, reason := range map[string]string{
		"tools[4].parameters.properties._scopes.const[0]":       "never scopeable",
		"tools[5].parameters.properties._scopes.items.enum[0]":  "never scopeable",
		"tools[6].parameters.properties._scopes":                "both const and items",
		"tools[7].parameters.properties._scopes.items.enum":     "missing",
		"tools[8].parameters.properties._scopes.type":           `expected "array"`,
		"tools[9].parameters.properties._scopes.provisioned[0]": "expected a scope string",
		"tools[10].parameters.properties._scopes":               `expected {"const": [...]}`,
		"tools[11].parameters.properties._scopes.const[0]":      "not a valid path",
	} {
		w := requireWarning(t, ws, file, field, reason)
		require.True(t, w.Rejected)
	}
	require.Len(t, s.Tools(), 5)
}

// Meta-properties stay in Parameters (in order) for the protocol runtime;
// LLMTool, what ordinary agents send, strips them.
func TestStrippedParameters(t *testing.T) {
	d := newDirs(t)
	write(t, d.Tools, map[string]string{"t.action": `{"tools": [
		{"type": "function", "name": "log_event", "parameters": {"type": "object", "properties": {
			"_scopes": {"type": "array", "items": {"enum": ["state", "input"]}}, "eventName": {"type": "string"},
			"_outputPath": {"const": "†state.log"}, "level": {"type": "integer"}},
			"required": ["_scopes", "eventName"], "description": "x"}},
		{"type": "function", "name": "only_meta", "parameters": {"type": "object",
			"properties": {"_activity": {"const": "a"}}, "required": ["_activity"]}},
		{"type": "function", "name": "no_meta", "parameters": {"type": "object", "properties": {"b": {}, "a": {"description": "<&>"}}}}]}`})
	s, ws := load(t, d)
	require.Empty(t, ws, dump(ws))

	ev, _ := s.Tool("log_event")
	require.Equal(t, `{"type":"object","properties":{"_scopes":{"type":"array","items":{"enum":["state","input"]}},`+
		`"eventName":{"type":"string"},"_outputPath":{"const":"†state.log"},"level":{"type":"integer"}},`+
		`"required":["_scopes","eventName"],"description":"x"}`, string(ev.Parameters), "kept as written, in order")
	stripped := `{"type":"object","properties":{"eventName":{"type":"string"},"level":{"type":"integer"}},` +
		`"required":["eventName"],"description":"x"}`
	require.Equal(t, stripped, string(ev.StrippedParameters()))
	require.Equal(t, stripped, string(ev.LLMTool().Parameters))
	raw, ok := ev.MetaProperty("_outputPath")
	require.True(t, ok)
	require.Equal(t, `{"const":"†state.log"}`, string(raw))
	_, ok = ev.MetaProperty("eventName")
	require.False(t, ok, "not a meta-property")
	_, ok = ev.MetaProperty("_output")
	require.False(t, ok)

	only, _ := s.Tool("only_meta")
	require.Equal(t, `{"type":"object","properties":{}}`, string(only.LLMTool().Parameters), "an emptied required list goes")

	plain, _ := s.Tool("no_meta")
	require.Equal(t, plain.Parameters, plain.LLMTool().Parameters, "nothing to strip: the same bytes")

	// A ToolDef not from a file (built-in tools) passes through too.
	builtin := ToolDef{Name: "x", Parameters: json.RawMessage(`{ "type": "object" }`)}
	require.Equal(t, `{ "type": "object" }`, string(builtin.StrippedParameters()))
	require.Empty(t, ToolDef{}.StrippedParameters())
}
