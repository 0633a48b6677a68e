package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/llmtest"
	"github.com/aitexteditor/aite/internal/tool"
)

// pvTool is a Go backend tool with a preview (a book edit tool).
type pvTool struct {
	*fnTool
}

// Preview refuses arguments holding "bad" and describes the others.
func (p pvTool) Preview(_ context.Context, args json.RawMessage) (tool.Result, error) {
	if strings.Contains(string(args), "bad") {
		return tool.Result{Text: "no such item: bad", IsError: true, Code: "not_found"}, nil
	}
	return tool.Result{Text: `{"op":"replace","args":` + string(args) + `}`}, nil
}

// confirmEnv is an env whose agent "a" has the previewing tool "editor".
func confirmEnv(t *testing.T) (*env, *fnTool) {
	e := newEnv(t, map[string]string{"agents/a.json": react(`"key": "a", "toolConfig": {"backends": ["editor", "echo"]}`)})
	ed := &fnTool{name: "editor", fn: func(_ context.Context, n int, args json.RawMessage) (tool.Result, error) {
		return tool.Result{Text: "applied " + string(args)}, nil
	}}
	e.tools["editor"] = ed
	e.toolsFor = func() map[string]tool.Tool {
		return map[string]tool.Tool{"editor": pvTool{ed}, "echo": e.tools["echo"]}
	}
	return e, ed
}

// runConfirming runs agent "a" with params; answer is called with the
// approvalId of each approval.request as soon as it is pending and returns
// the /submit params (nil: no answer).
func (e *env) runConfirming(params string, answer func(approvalID string) string) *recorder {
	e.t.Helper()
	s := e.spec("a", "go")
	require.NoError(e.t, json.Unmarshal([]byte(params), &s.Params))
	rec := e.recorder(s)
	done := make(chan error, 1)
	go func() { done <- rec.drain(e.eng.Run(context.Background(), s)) }()
	answered := map[string]bool{}
	for {
		select {
		case err := <-done:
			require.NoError(e.t, err)
			return rec
		case <-time.After(tick):
		}
		for _, ev := range rec.filter("approval.request:") {
			id := strings.Split(ev, ":")[1] + ":" + strings.Split(ev, ":")[2]
			if answered[id] || !e.pending(s.RunID, id) {
				continue
			}
			answered[id] = true
			if p := answer(id); p != "" {
				require.True(e.t, e.submit(s.RunID, id, p))
			}
		}
	}
}

func TestConfirmEdits(t *testing.T) {
	turn := func() *llmtest.Scripted {
		return scripted(llmtest.Calls(call("c1", "editor", `{"p":1}`), call("c2", "echo", `{}`), call("c3", "editor", `{"p":3}`)),
			llmtest.Text("done"))
	}
	t.Run("approve all at once", func(t *testing.T) {
		e, ed := confirmEnv(t)
		e.provide(turn())
		rec := e.runConfirming(`{"confirmEdits": true}`, func(string) string { return `{"decision":"approve"}` })
		rec.requireTerminal(t, "complete:stop")
		require.Equal(t, []string{
			`approval.request:calls:c1:1:1000:[c1=editor@{"p":1}~{"op":"replace","args":{"p":1}} c3=editor@{"p":3}~{"op":"replace","args":{"p":3}}]:`,
			`submit:calls:c1:{"decision":"approve"}`,
			`approval.decision:calls:c1:approve:[c1 c3]:[]:user::`,
			`result:c1:applied {"p":1}`, `result:c2:echo:{}`, `result:c3:applied {"p":3}`,
		}, rec.filter("approval.", "submit:", "result:"))
		require.Equal(t, 2, ed.calls())
	})
	t.Run("partial with a reason", func(t *testing.T) {
		e, ed := confirmEnv(t)
		e.provide(turn())
		rec := e.runConfirming(`{"confirmEdits": true}`, func(string) string {
			return `{"decision":"partial","approved":["c3"],"reason":"keep the first"}`
		})
		rec.requireTerminal(t, "complete:stop")
		require.Equal(t, []string{
			`approval.decision:calls:c1:partial:[c3]:[c1]:user:keep the first:`,
			`result:c1:` + errJSON("editor", "call_denied", "The user did not approve this edit, so it was not applied. Reason: keep the first"),
			`result:c2:echo:{}`, `result:c3:applied {"p":3}`,
		}, rec.filter("approval.decision", "result:"))
		require.Equal(t, []string{`{"p":3}`}, ed.received())
	})
	t.Run("a refused preview never runs", func(t *testing.T) {
		e, ed := confirmEnv(t)
		e.provide(scripted(llmtest.Calls(call("c1", "editor", `{"p":"bad"}`)), llmtest.Text("done")))
		rec := e.runConfirming(`{"confirmEdits": true}`, func(string) string { return `{"decision":"approve"}` })
		rec.requireTerminal(t, "complete:stop")
		require.Empty(t, rec.filter("approval."))
		require.Equal(t, []string{`result:c1:` + errJSON("editor", "not_found", "no such item: bad")}, rec.filter("result:"))
		require.Zero(t, ed.calls())
	})
	t.Run("no answer denies by policy", func(t *testing.T) {
		e, ed := confirmEnv(t)
		e.eng.FrontendTimeout = 30 * time.Millisecond
		e.provide(scripted(llmtest.Calls(call("c1", "editor", `{"p":1}`)), llmtest.Text("done")))
		rec := e.runConfirming(`{"confirmEdits": true}`, func(string) string { return "" })
		rec.requireTerminal(t, "complete:stop")
		require.Equal(t, []string{`approval.decision:calls:c1:timeout:[]:[c1]:policy:no decision within 30 ms:`},
			rec.filter("approval.decision"))
		require.Empty(t, rec.filter("submit:"))
		require.Zero(t, ed.calls())
	})
	t.Run("off unless asked", func(t *testing.T) {
		e, ed := confirmEnv(t)
		e.provide(turn())
		rec := e.runConfirming(`{"confirmEdits": false}`, func(string) string { return "" })
		rec.requireTerminal(t, "complete:stop")
		require.Empty(t, rec.filter("approval."))
		require.Equal(t, 2, ed.calls())
	})
}

func TestToolProgress(t *testing.T) {
	e := newEnv(t, map[string]string{"agents/a.json": react(`"key": "a", "toolConfig": {"backends": ["slow"]}`)})
	e.tools["slow"] = &fnTool{name: "slow", fn: func(ctx context.Context, _ int, _ json.RawMessage) (tool.Result, error) {
		for i := 1; i <= 3; i++ {
			tool.Report(ctx, tool.Progress{Kind: "cursor_agent", Message: "batch " + string(rune('0'+i)) + " of ~3"})
		}
		return tool.Result{Text: "ok"}, nil
	}}
	e.provide(scripted(llmtest.Calls(call("c1", "slow", `{}`)), llmtest.Text("done")))
	rec, _ := e.run("a", "go")
	rec.requireTerminal(t, "complete:stop")
	require.Equal(t, []string{"progress:c1:cursor_agent:batch 1 of ~3", "progress:c1:cursor_agent:batch 2 of ~3",
		"progress:c1:cursor_agent:batch 3 of ~3", "result:c1:ok"}, rec.filter("progress:", "result:"))
}
