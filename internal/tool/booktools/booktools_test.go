package booktools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/stretchr/testify/require"
)

func env(t *testing.T) Env {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "zvezdochkin.md"))
	require.NoError(t, err)
	s := editor.New()
	s.Load("book", src)
	return Env{Session: s, Book: "book"}
}

func call(t *testing.T, r *tool.Registry, name, args string) (tool.Result, map[string]any) {
	t.Helper()
	res, err := r.Call(context.Background(), name, json.RawMessage(args))
	require.NoError(t, err)
	var v map[string]any
	if !res.IsError {
		require.NoError(t, json.Unmarshal([]byte(res.Text), &v), res.Text)
	}
	return res, v
}

func TestEveryToolHasADescriptionAndSchema(t *testing.T) {
	r := Registry(env(t))
	require.Len(t, r.Tools(), 16)
	for _, tl := range r.Tools() {
		require.NotEmpty(t, strings.TrimSpace(tl.Description()), tl.Name())
		var s map[string]any
		require.NoError(t, json.Unmarshal(tl.Parameters(), &s), tl.Name())
		require.Equal(t, "object", s["type"], tl.Name())
		require.Regexp(t, `^[a-z_]+-[a-z_]+$`, tl.Name())
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			typ, single := p.(map[string]any)["type"].(string)
			require.True(t, single, "%s.%s: one JSON type per property, got %v", tl.Name(), name, p.(map[string]any)["type"])
			require.NotEqual(t, "null", typ)
		}
	}
}

// TestDocumentedDefaults: an optional parameter the descriptions call
// defaulted has that default in its schema and gets it when left out.
func TestDocumentedDefaults(t *testing.T) {
	r := Registry(env(t))
	defaults := map[string]map[string]any{
		"cursor-create_keyword_cursor":   {"includeHeadings": true},
		"cursor-create_full_scan_cursor": {"includeHeadings": true},
		"cursor-create_filtered_cursor":  {"includeHeadings": true},
		"editor-read":                    {"before": 0.0, "after": 0.0},
		"search-find":                    {"mode": "auto"},
		"cursor_agent-run_cursor_agent":  {"mode": "FirstMatch"},
	}
	for name, want := range defaults {
		tl, ok := r.Get(name)
		require.True(t, ok, name)
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(tl.Parameters(), &s))
		for prop, def := range want {
			require.Equal(t, def, s.Properties[prop]["default"], "%s.%s", name, prop)
		}
	}
	_, v := call(t, r, "cursor-create_keyword_cursor", `{"keywords":["Звёздочкин"]}`)
	res, batch := call(t, r, "cursor-read_cursor_batch", `{"cursorName":"`+v["cursorName"].(string)+`"}`)
	require.False(t, res.IsError, res.Text)
	require.Equal(t, "Heading", batch["items"].([]any)[0].(map[string]any)["kind"], "includeHeadings defaults to true")
}

func TestCursorTools(t *testing.T) {
	r := Registry(env(t))
	_, v := call(t, r, "cursor-create_keyword_cursor", `{"keywords":["Звёздочкин"],"includeHeadings":false}`)
	name := v["cursorName"].(string)
	require.Equal(t, "kwd_cursor_0", name)
	_, b := call(t, r, "cursor-read_cursor_batch", `{"cursorName":"`+name+`"}`)
	items := b["items"].([]any)
	require.NotEmpty(t, items)
	require.NotEqual(t, "Heading", items[0].(map[string]any)["kind"])
	res, _ := call(t, r, "cursor-read_cursor_batch", `{"cursorName":"nope"}`)
	require.True(t, res.IsError)
	require.Equal(t, "Cursor 'nope' is not defined", res.Text)
	res, _ = call(t, r, "cursor-create_filtered_cursor", `{"filterDescription":"dialogue"}`)
	require.True(t, res.IsError)
	require.Contains(t, res.Text, "no filter parameter")
	_, v = call(t, r, "cursor-create_filtered_cursor", `{"filterDescription":"dialogue in chapter 2","within":"1.2","regex":"^\\s*—","maxElements":50}`)
	require.Equal(t, "flt_cursor_1", v["cursorName"])
	res, _ = call(t, r, "cursor_agent-run_cursor_agent", `{"cursorName":"flt_cursor_1","taskDescription":"x"}`)
	require.True(t, res.IsError, "no model: an error result, not a crash")
}

func TestEditToolsReportEdits(t *testing.T) {
	e := env(t)
	r := Registry(e)
	res, v := call(t, r, "editor-replace_text", `{"pointer":"1.p1","markdown":"Новое вступление."}`)
	require.Equal(t, "Новое вступление.", v["markdown"])
	require.Len(t, res.Edits, 1)
	require.Equal(t, "replace", res.Edits[0].Op)
	require.Contains(t, res.Edits[0].Before, "Верхние Ключи")
	res, v = call(t, r, "editor-insert_after", `{"pointer":"1.p1","markdown":"Ещё абзац."}`)
	require.Equal(t, "1.p2", strings.SplitN(v["pointer"].(string), ":", 2)[1])
	require.Len(t, res.Edits, 1)
	res, _ = call(t, r, "editor-delete", `{"pointer":"1.1"}`)
	require.True(t, res.IsError)
	require.Equal(t, "refused", res.Code)
	require.Contains(t, res.Text, "heading")
	res, _ = call(t, r, "editor-read", `{"pointer":"9.9.p99"}`)
	require.True(t, res.IsError)
	require.Equal(t, "not_found", res.Code)
	require.Contains(t, res.Text, "nearest pointers")
	_, v = call(t, r, "editor-read", `{"pointer":"1.p1","after":1}`)
	require.Len(t, v["items"], 2)
	_, v = call(t, r, "editor-create_targets", `{"label":"x","pointers":["1.p1","bogus"]}`)
	require.Equal(t, float64(1), v["count"])
	_, v = call(t, r, "editor-get_default_document_id", `{}`)
	require.Equal(t, "book", v["documentId"])
	_, v = call(t, r, "search-find", `{"query":"часы на башне","mode":"exact"}`)
	require.NotEmpty(t, v["results"])
	res, _ = call(t, r, "search-find", `{"query":"x","mode":"fuzzy"}`)
	require.True(t, res.IsError)
}

func TestShowUserMessageReports(t *testing.T) {
	r := Registry(env(t))
	var got []tool.Progress
	ctx := tool.WithReporter(context.Background(), func(p tool.Progress) { got = append(got, p) })
	_, err := r.Call(ctx, "editor-show_user_message", json.RawMessage(`{"message":"working on it"}`))
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "user_message", got[0].Kind)
}

func TestPreviewChangesNothing(t *testing.T) {
	e := env(t)
	before, err := e.Session.Source(e.Book)
	require.NoError(t, err)
	for _, name := range []string{"editor-replace_text", "editor-insert_before", "editor-insert_after", "editor-delete"} {
		require.True(t, IsEdit(name), name)
		res, err := Preview(e, name, json.RawMessage(`{"pointer":"1.p1","markdown":"Новый абзац."}`))
		require.NoError(t, err)
		require.False(t, res.IsError, "%s: %s", name, res.Text)
		var p map[string]string
		require.NoError(t, json.Unmarshal([]byte(res.Text), &p))
		require.Equal(t, "2:1.p1", p["pointer"], name)
		require.NotEmpty(t, p["op"], name)
		if name == "editor-replace_text" {
			require.Contains(t, p["oldMarkdown"], "Верхние Ключи")
			require.Equal(t, "Новый абзац.", p["newMarkdown"])
		}
	}
	after, err := e.Session.Source(e.Book)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after))

	require.False(t, IsEdit("editor-read"))
	for args, code := range map[string]string{`{"pointer":"1.1"}`: "refused", `{"pointer":"9.9.p99","markdown":"x"}`: "not_found",
		`{"markdown":"x"}`: "invalid_arguments", `not json`: "invalid_arguments"} {
		name := "editor-replace_text"
		if code == "refused" {
			name = "editor-delete"
		}
		res, err := Preview(e, name, json.RawMessage(args))
		require.NoError(t, err)
		require.True(t, res.IsError, args)
		require.Equal(t, code, res.Code, args)
	}
	res, err := Preview(e, "editor-read", json.RawMessage(`{"pointer":"1.p1"}`))
	require.NoError(t, err)
	require.True(t, res.IsError)
}
