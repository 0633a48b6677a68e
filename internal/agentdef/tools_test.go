package agentdef

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTools(t *testing.T) {
	d := newDirs(t)
	write(t, d.Tools, map[string]string{
		"web.backend": `{"tools": [
			// metadata of Go tools
			{"type": "function", "name": "Search", "description": " Finds. ", "afterCallHint": "Cite.",
			 "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}, "strict": true},
			{"type": "function", "name": "ghost"},
			{"type": "other", "name": "skipped"},
			{"type": "function", "name": "bad", "parameters": [1]},
			"not an object"
		]}`,
		"Ask_User.frontend": `{"tools": [{"type": "function", "name": "ask_user", "toolApi": {"v": 1}}]}`,
		"open.action":       `{"tools": [{"type": "function", "name": "Open_Doc", "description": "Opens."}]}`,
		"dup1.action":       `{"tools": [{"type": "function", "name": "twice"}]}`,
		"dup2.frontend":     `{"tools": [{"type": "function", "name": "twice"}, {"type": "function", "name": "pair"}, {"type": "function", "name": "pair"}]}`,
		"clash.frontend":    `{"tools": [{"type": "function", "name": "read"}]}`,
		"broken.action":     `{"tools": `,
		"notes.md":          "x",
	})
	write(t, d.Viewports, map[string]string{"ask_user.html": "<form>"})
	s, ws := load(t, d)
	names := []string{}
	for _, tool := range s.Tools() {
		names = append(names, tool.Name)
	}
	require.Equal(t, []string{"ask_user", "open_doc", "search"}, names, dump(ws))

	search, ok := s.Tool("SEARCH")
	require.True(t, ok)
	require.Equal(t, ToolBackend, search.Kind)
	require.Equal(t, "function", search.Kind.ToolType())
	require.Equal(t, "Finds.", search.Description)
	require.Equal(t, "Cite.", search.AfterCallHint)
	require.True(t, search.Strict)
	require.JSONEq(t, `{"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}`, string(search.Parameters))
	require.Equal(t, "search", search.LLMTool().Name)

	ask, _ := s.Tool("ask_user")
	require.Equal(t, ToolFrontend, ask.Kind)
	require.Equal(t, "ask_user", ask.ViewportKey)
	require.JSONEq(t, `{"v": 1}`, string(ask.ToolAPI))
	require.JSONEq(t, `{"type":"object","properties":{}}`, string(ask.Parameters))

	open, _ := s.Tool("open_doc")
	require.Equal(t, ToolAction, open.Kind)
	require.Equal(t, "action", open.Kind.ToolType())
	require.Empty(t, open.ViewportKey)

	f := func(name string) string { return filepath.Join(d.Tools, name) }
	requireWarning(t, ws, f("web.backend"), "tools[1].name", "no Go implementation")
	requireWarning(t, ws, f("web.backend"), "tools[2].type", "not \"function\"")
	requireWarning(t, ws, f("web.backend"), "tools[3].parameters", "JSON Schema object")
	requireWarning(t, ws, f("web.backend"), "tools[4]", "expected object")
	requireWarning(t, ws, f("dup1.action"), "tools[0].name", "more than once")
	requireWarning(t, ws, f("dup2.frontend"), "tools[0].name", "more than once")
	requireWarning(t, ws, f("dup2.frontend"), "tools[1].name", "more than once")
	requireWarning(t, ws, f("dup2.frontend"), "tools[2].name", "more than once")
	requireWarning(t, ws, f("clash.frontend"), "tools[0].name", "built-in backend")
	requireWarning(t, ws, f("broken.action"), "", "invalid JSON")
	requireWarning(t, ws, f("notes.md"), "", "ignored")
	_, ok = s.Tool("twice")
	require.False(t, ok, "a duplicate name is skipped in both places")
}

func TestToolDuplicateKeepsBuiltinKnown(t *testing.T) {
	d := newDirs(t)
	write(t, d.Tools, map[string]string{
		"a.backend": `{"tools": [{"type": "function", "name": "search"}]}`,
		"b.backend": `{"tools": [{"type": "function", "name": "search"}]}`,
	})
	write(t, d.Agents, map[string]string{"x.json": ag(`"toolConfig": {"backends": ["search"]}`)})
	s, ws := load(t, d)
	require.Empty(t, s.Tools())
	a, _ := s.Agent("x")
	require.Equal(t, []string{"search"}, a.Tools, "the Go implementation still exists: %s", dump(ws))
}

func TestFrontendWithoutViewportWarns(t *testing.T) {
	d := newDirs(t)
	write(t, d.Tools, map[string]string{"pick.frontend": `{"tools": [{"type": "function", "name": "pick"}]}`})
	s, ws := load(t, d)
	_, ok := s.Tool("pick")
	require.True(t, ok)
	requireWarning(t, ws, filepath.Join(d.Tools, "pick.frontend"), "", `no viewport "pick"`)
}

func TestToolParametersKeepOrder(t *testing.T) {
	d := newDirs(t)
	write(t, d.Tools, map[string]string{"o.action": `{"tools": [{"type": "function", "name": "o",
		"parameters": {"type": "object", "properties": {"z": {}, "a": {}}}}]}`})
	s, _ := load(t, d)
	o, _ := s.Tool("o")
	require.Equal(t, json.RawMessage(`{"type":"object","properties":{"z":{},"a":{}}}`), o.Parameters)
}
