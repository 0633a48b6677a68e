package bookprotocol

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// recorder collects the edits handed to Options.OnEdit.
type recorder struct {
	mu      sync.Mutex
	edits   []tool.Edit
	toolIDs []string
}

func (r *recorder) onEdit(_ context.Context, call *protocol.Call, e tool.Edit) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.edits = append(r.edits, e)
	r.toolIDs = append(r.toolIDs, call.ToolID)
}

func TestEditActivitiesReportOldAndNewMarkdown(t *testing.T) {
	env := sampleEnv(t)
	rec := &recorder{}
	acts := ActivitiesWith(env, Options{OnEdit: rec.onEdit})
	before, err := env.Session.Resolve(env.Book, "1.p1")
	require.NoError(t, err)

	res, err := run(t, acts, ReplaceText, `{"pointer":"1.p1","newMarkdown":"Новое вступление."}`, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"ok", "op", "target", "pointer", "oldMarkdown", "newMarkdown"}, res.Value.(*agentctx.Object).Keys())
	v := plain(t, res.Value)
	require.Equal(t, true, v["ok"])
	require.Equal(t, "replace", v["op"])
	require.Equal(t, before.Pointer.String(), v["target"])
	require.Equal(t, before.Markdown, v["oldMarkdown"])
	require.Equal(t, "Новое вступление.", v["newMarkdown"])
	require.Len(t, rec.edits, 1)
	require.Equal(t, tool.Edit{Book: "book", Op: "replace", Pointer: before.Pointer.String(), NewPointer: v["pointer"].(string),
		Before: before.Markdown, After: "Новое вступление."}, rec.edits[0])
	require.Equal(t, []string{"run_call_1_0"}, rec.toolIDs, "OnEdit gets the call (its tool id)")
	after, err := env.Session.Resolve(env.Book, "1.p1")
	require.NoError(t, err)
	require.Equal(t, "Новое вступление.", after.Markdown)

	v = mustRun(t, acts, InsertAfter, `{"pointer":"1.p1","markdown":"Ещё абзац."}`, nil)
	require.Equal(t, "insert_after", v["op"])
	require.True(t, strings.HasSuffix(v["pointer"].(string), ":1.p2"))
	require.Equal(t, "", v["oldMarkdown"])
	v = mustRun(t, acts, InsertBefore, `{"pointer":"1.p1","markdown":"Самый первый абзац."}`, nil)
	require.Equal(t, "insert_before", v["op"])
	v = mustRun(t, acts, DeleteItem, `{"pointer":"`+v["pointer"].(string)+`"}`, nil)
	require.Equal(t, "delete", v["op"])
	require.Equal(t, "Самый первый абзац.", v["oldMarkdown"])
	require.Equal(t, "", v["newMarkdown"])
	require.NotContains(t, v, "pointer", "a deleted item has no pointer after the edit")
	require.Len(t, rec.edits, 4)
}

func TestEditActivitiesRefuseWhatTheEditorRefuses(t *testing.T) {
	env := sampleEnv(t)
	rec := &recorder{}
	acts := ActivitiesWith(env, Options{OnEdit: rec.onEdit})
	src, err := env.Session.Source(env.Book)
	require.NoError(t, err)

	_, err = run(t, acts, DeleteItem, `{"pointer":"1.1"}`, nil)
	require.Contains(t, modelError(t, err, "refused"), "heading")
	_, err = run(t, acts, ReplaceText, `{"pointer":"1.p1","newMarkdown":"one\n\ntwo"}`, nil)
	modelError(t, err, "refused")
	_, err = run(t, acts, InsertAfter, `{"pointer":"1.p1","markdown":"## A new heading"}`, nil)
	modelError(t, err, "refused")
	_, err = run(t, acts, ReplaceText, `{"pointer":"9.9.p99","newMarkdown":"x"}`, nil)
	require.Contains(t, modelError(t, err, "not_found"), "nearest pointers")
	_, err = run(t, acts, ReplaceText, `{"pointer":"1.p1"}`, nil)
	require.Contains(t, modelError(t, err, "invalid_arguments"), "newMarkdown")
	_, err = run(t, acts, InsertBefore, `{"pointer":"1.p1","newMarkdown":"x"}`, nil)
	require.Contains(t, modelError(t, err, "invalid_arguments"), "markdown")
	_, err = run(t, acts, DeleteItem, `{}`, nil)
	modelError(t, err, "invalid_arguments")

	after, err := env.Session.Source(env.Book)
	require.NoError(t, err)
	require.Equal(t, string(src), string(after), "a refused edit changes nothing")
	require.Empty(t, rec.edits)
}

// countingTool wraps a booktools tool and counts its calls.
type countingTool struct {
	tool.Tool
	calls *int
}

func (c countingTool) Call(ctx context.Context, args json.RawMessage) (tool.Result, error) {
	*c.calls++
	res, err := c.Tool.Call(ctx, args)
	for i := range res.Edits {
		res.Edits[i].Revision = 7 // as the server's persisted tools stamp it
	}
	return res, err
}

func TestHostToolsReplaceTheBookTools(t *testing.T) {
	env := sampleEnv(t)
	n := 0
	host := map[string]tool.Tool{}
	for _, bt := range booktools.Tools(env) {
		if bt.Name() == "editor-replace_text" || bt.Name() == "editor-read" {
			host[bt.Name()] = countingTool{Tool: bt, calls: &n}
		}
	}
	rec := &recorder{}
	acts := ActivitiesWith(env, Options{Tools: host, OnEdit: rec.onEdit})
	mustRun(t, acts, ReplaceText, `{"pointer":"1.p1","newMarkdown":"Новое."}`, nil)
	v := mustRun(t, acts, Read, `{"pointer":"1.p1","before":null,"after":1}`, nil)
	require.Len(t, v["items"], 2)
	require.Equal(t, 2, n)
	require.Equal(t, 7, rec.edits[0].Revision, "the host's edit reaches OnEdit as the host made it")
	_, err := run(t, acts, Read, `{"pointer":"9.9.p99"}`, nil)
	modelError(t, err, "not_found")
}

func TestActivitiesWithoutABook(t *testing.T) {
	acts := Activities(booktools.Env{})
	for _, name := range []string{ReadCursorBatch, CreateTargets, ReplaceText, Read} {
		_, err := run(t, acts, name, `{"cursorName":"c","pointer":"1","label":"l","pointers":["1"],"newMarkdown":"x"}`, nil)
		require.Error(t, err, name)
		require.False(t, isModelError(err), "%s: a missing book is not the model's fault", name)
	}
}

// preview runs an edit activity's Preview (edit approval).
func preview(t *testing.T, acts map[string]protocol.Activity, name, argsJSON string) (any, error) {
	t.Helper()
	pv, ok := acts[name].(protocol.Previewer)
	require.True(t, ok, "%s is a Previewer", name)
	return pv.Preview(context.Background(), callOf(t, name, argsJSON), &protocol.Tool{Name: name}, nil)
}

// The edit activities preview their calls for the edit approval: the
// pointer, the operation and the item's Markdown before and after, as the
// edit would report them; nothing changes; the editor's refusals fail the
// preview with the same errors as the edit.
func TestEditActivitiesPreview(t *testing.T) {
	env := sampleEnv(t)
	rec := &recorder{}
	acts := ActivitiesWith(env, Options{OnEdit: rec.onEdit})
	src, err := env.Session.Source(env.Book)
	require.NoError(t, err)
	before, err := env.Session.Resolve(env.Book, "1.p1")
	require.NoError(t, err)
	ptr := before.Pointer.String()

	for _, tc := range []struct{ name, args, op, old, new string }{
		{ReplaceText, `{"pointer":"1.p1","newMarkdown":"Новое вступление."}`, "replace", before.Markdown, "Новое вступление."},
		{InsertAfter, `{"pointer":"1.p1","markdown":"Ещё абзац."}`, "insert_after", "", "Ещё абзац."},
		{InsertBefore, `{"pointer":"1.p1","markdown":"Самый первый абзац."}`, "insert_before", "", "Самый первый абзац."},
		{DeleteItem, `{"pointer":"1.p1"}`, "delete", before.Markdown, ""},
	} {
		v, err := preview(t, acts, tc.name, tc.args)
		require.NoError(t, err, tc.name)
		require.Equal(t, []string{"pointer", "op", "oldMarkdown", "newMarkdown"}, v.(*agentctx.Object).Keys())
		require.Equal(t, map[string]any{"pointer": ptr, "op": tc.op, "oldMarkdown": tc.old, "newMarkdown": tc.new}, plain(t, v), tc.name)
	}
	after, err := env.Session.Source(env.Book)
	require.NoError(t, err)
	require.Equal(t, string(src), string(after), "a preview changes nothing")
	require.Empty(t, rec.edits)

	// The preview of a replace equals what the edit then reports.
	v, err := preview(t, acts, ReplaceText, `{"pointer":"1.p1","newMarkdown":"Новое вступление."}`)
	require.NoError(t, err)
	applied := mustRun(t, acts, ReplaceText, `{"pointer":"1.p1","newMarkdown":"Новое вступление."}`, nil)
	require.Equal(t, applied["oldMarkdown"], plain(t, v)["oldMarkdown"])
	require.Equal(t, applied["newMarkdown"], plain(t, v)["newMarkdown"])

	_, err = preview(t, acts, DeleteItem, `{"pointer":"1.1"}`)
	require.Contains(t, modelError(t, err, "refused"), "heading")
	_, err = preview(t, acts, ReplaceText, `{"pointer":"1.p1","newMarkdown":"one\n\ntwo"}`)
	modelError(t, err, "refused")
	_, err = preview(t, acts, ReplaceText, `{"pointer":"9.9.p99","newMarkdown":"x"}`)
	modelError(t, err, "not_found")
	_, err = preview(t, acts, ReplaceText, `{"pointer":"1.p1"}`)
	require.Contains(t, modelError(t, err, "invalid_arguments"), "newMarkdown")
	_, err = preview(t, Activities(booktools.Env{}), ReplaceText, `{"pointer":"1.p1","newMarkdown":"x"}`)
	require.Error(t, err)
	require.False(t, isModelError(err), "a missing book is not the model's fault")
}
