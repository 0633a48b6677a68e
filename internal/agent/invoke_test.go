package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/tool"
)

// The rule of package tool, the same in every strategy: a Go tool's Go
// error means infrastructure broke; the call is retried up to
// budget.tool.retryCount times, then fails (tool_failed in a platform
// mode, activity_failed in a protocol run) and the run goes on.
func TestToolGoErrorRule(t *testing.T) {
	broken := func() *fnTool {
		return &fnTool{name: "echo", fn: func(context.Context, int, json.RawMessage) (tool.Result, error) {
			return tool.Result{}, errors.New("disk gone")
		}}
	}
	t.Run("platform mode", func(t *testing.T) {
		e := newEnv(t, map[string]string{"agents/a.json": react(`"key": "a", "toolConfig": {"backends": ["echo"]},
			"budget": {"tool": {"retryCount": 2}}`)})
		e.tools["echo"] = broken()
		e.provide(scripted(llmtest.Calls(call("c1", "echo", `{}`)), llmtest.Text("the tool is broken")))
		rec, _ := e.run("a", "go")
		rec.requireTerminal(t, "complete:stop")
		require.Equal(t, []string{"result:c1:" + errJSON("echo", "tool_failed", "disk gone")}, rec.filter("result:"))
		require.Equal(t, 3, e.tools["echo"].calls())
	})
	t.Run("protocol run", func(t *testing.T) {
		e := newEnv(t, protoFiles("", `"budget": {"tool": {"retryCount": 2}}`))
		e.tools["echo"] = broken()
		e.provide(scripted(
			solution(`{"advisors":[{"id":"gate","thought":"go","calls":"{}"}],"calls":[{"_tool":"echo","_reasoningForCall":"x","text":"a"}],"output":null}`),
			solution(`{"advisors":[{"id":"gate","thought":"ok","calls":"{}"}],"calls":[],"output":{"answer":"The tool is broken."}}`)))
		rec, s := e.run("a", "go")
		rec.requireTerminal(t, "complete:stop")
		res := rec.filter("result:" + s.RunID + "_call_1_0")
		require.Len(t, res, 1)
		require.True(t, strings.Contains(res[0], `"code":"activity_failed"`) && strings.Contains(res[0], "disk gone"), res[0])
		require.Equal(t, 3, e.tools["echo"].calls())
	})
}
