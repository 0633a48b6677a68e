package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// listTools returns the tools a client sees, as indented JSON.
func listTools(t *testing.T, cs *mcp.ClientSession) ([]*mcp.Tool, []byte) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	b, err := json.MarshalIndent(res.Tools, "", "  ")
	require.NoError(t, err)
	return res.Tools, append(b, '\n')
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/mcpserver/ -update to write %s", path)
	require.Equal(t, string(want), string(got), "tools/list changed: review it and rewrite %s with -update", path)
}

// TestToolsListGolden pins what each kind of client sees: a client that
// can elicit gets the edit tools, one that cannot gets propose_* and
// apply_edit, and the HTTP server adds documentId and list_documents.
func TestToolsListGolden(t *testing.T) {
	var asked []*mcp.ElicitParams
	for _, tc := range []struct {
		golden string
		opts   Options
		client *mcp.ClientOptions
	}{
		{"tools_elicit.golden.json", Options{}, accepting(&asked, "accept", nil)},
		{"tools_propose.golden.json", Options{}, nil},
		{"tools_http.golden.json", Options{Multi: true}, nil},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			lib, _ := fileLibrary(t)
			tools, b := listTools(t, connect(t, lib, tc.opts, tc.client, ""))
			golden(t, tc.golden, b)
			for _, tl := range tools {
				require.NotEmpty(t, tl.Description, tl.Name)
				require.NotNil(t, tl.Annotations, tl.Name)
				requireOneTypePerProperty(t, tl)
			}
		})
	}
}

// requireOneTypePerProperty: no type lists (["null","boolean"]) anywhere.
func requireOneTypePerProperty(t *testing.T, tl *mcp.Tool) {
	t.Helper()
	b, err := json.Marshal(tl.InputSchema)
	require.NoError(t, err)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if typ, ok := v["type"]; ok {
				_, single := typ.(string)
				require.True(t, single, "%s %s: type %v", tl.Name, path, typ)
			}
			for k, sub := range v {
				walk(path+"."+k, sub)
			}
		case []any:
			for _, sub := range v {
				walk(path, sub)
			}
		}
	}
	var s any
	require.NoError(t, json.Unmarshal(b, &s))
	walk("", s)
}

// TestTheSameToolsAsTheAgents: every book tool of the registry the MCP
// server offers has the registry's description and schema, byte for byte.
func TestTheSameToolsAsTheAgents(t *testing.T) {
	lib, _ := fileLibrary(t)
	var asked []*mcp.ElicitParams
	tools, _ := listTools(t, connect(t, lib, Options{CursorAgent: true}, accepting(&asked, "accept", nil), ""))
	byName := map[string]*mcp.Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	for _, def := range booktools.Tools(booktools.Env{}) {
		tl, ok := byName[def.Name()]
		if omitted[def.Name()] {
			require.False(t, ok, "%s is not offered over MCP", def.Name())
			continue
		}
		require.True(t, ok, "%s is missing", def.Name())
		require.Equal(t, def.Description(), tl.Description, def.Name())
		got, err := json.Marshal(tl.InputSchema)
		require.NoError(t, err)
		require.JSONEq(t, string(def.Parameters()), string(got), def.Name())
	}
}

// TestEveryToolGoodAndBad calls every tool a client can see with good and
// with bad arguments: bad ones are isError results with a code and a text
// the model can act on (for pointers: the nearest pointers).
func TestEveryToolGoodAndBad(t *testing.T) {
	type check struct {
		tool      string
		good, bad any
		code      string // of the bad call
		says      string // in the bad call's text
	}
	common := []check{
		{"cursor-create_keyword_cursor", map[string]any{"keywords": []string{"Варя"}}, map[string]any{"keywords": "Варя"}, "invalid_arguments", "keywords"},
		{"cursor-create_full_scan_cursor", map[string]any{}, map[string]any{"includeHeadings": "yes"}, "invalid_arguments", "includeHeadings"},
		{"cursor-create_filtered_cursor", map[string]any{"filterDescription": "chapter 2", "within": "35"},
			map[string]any{"filterDescription": "chapter 2", "within": "999"}, "invalid_arguments", "nearest pointers"},
		{"cursor-read_cursor_batch", map[string]any{"cursorName": "CUR_WHOLE_BOOK_FORWARD"}, map[string]any{"cursorName": "nope"}, "invalid_arguments", "not defined"},
		{"editor-read", map[string]any{"pointer": "2", "after": 1}, map[string]any{"pointer": "999"}, "not_found", "nearest pointers: 104:1.5.p8"},
		{"editor-create_targets", map[string]any{"label": "t", "pointers": []string{"2", "4"}}, map[string]any{"label": "t"}, "invalid_arguments", "pointers"},
		{"search-find", map[string]any{"query": "часы на башне"}, map[string]any{"query": "часы", "mode": "fuzzy"}, "invalid_arguments", "mode"},
		{"codex-build", map[string]any{}, map[string]any{"entries": "many"}, "invalid_arguments", "entries"},
		{"codex-lookup", map[string]any{"entry": "Аркадий Львович", "at": "9"}, map[string]any{"entry": "Раскольников"}, "not_found", "no such entry"},
		{"codex-lookup", map[string]any{}, map[string]any{"kind": "planet"}, "invalid_arguments", "kind"},
		{ToolReadMore, nil, map[string]any{"continuation": "nope"}, "invalid_arguments", "not a continuation"},
	}
	edits := []check{
		{"editor-replace_text", map[string]any{"pointer": "2", "markdown": "Новое вступление."}, map[string]any{"pointer": "999", "markdown": "x"}, "not_found", "nearest pointers"},
		{"editor-insert_before", map[string]any{"pointer": "4", "markdown": "Вставка до."}, map[string]any{"pointer": "4", "markdown": "## Заголовок"}, "refused", "heading"},
		{"editor-insert_after", map[string]any{"pointer": "4", "markdown": "Вставка после."}, map[string]any{"pointer": "4"}, "invalid_arguments", "markdown"},
		{"editor-delete", map[string]any{"pointer": "5"}, map[string]any{"pointer": "3"}, "refused", "heading"},
	}
	var proposals []check
	for _, e := range edits {
		e.tool = proposeName(e.tool)
		proposals = append(proposals, e)
	}
	proposals = append(proposals, check{ToolApplyEdit, nil, map[string]any{"proposalId": "nope"}, "not_found", "propose the edit again"})
	var asked []*mcp.ElicitParams
	for _, tc := range []struct {
		name   string
		client *mcp.ClientOptions
		checks []check
	}{
		{"elicit", accepting(&asked, "accept", nil), append(slices.Clone(common), edits...)},
		{"propose", nil, append(slices.Clone(common), proposals...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lib, _ := fileLibrary(t)
			cs := connect(t, lib, Options{}, tc.client, "")
			tools, _ := listTools(t, cs)
			seen := map[string]bool{}
			for _, c := range tc.checks {
				seen[c.tool] = true
				if c.good != nil {
					res := call(t, cs, c.tool, c.good)
					require.False(t, res.IsError, "%s good: %s", c.tool, textOf(res))
					object(t, res)
				}
				code, text := failureOf(t, call(t, cs, c.tool, c.bad))
				require.Equal(t, c.code, code, "%s bad: %s", c.tool, text)
				require.Contains(t, text, c.says, c.tool)
			}
			for _, tl := range tools {
				require.True(t, seen[tl.Name], "%s is listed but not checked here", tl.Name)
			}
		})
	}
}
