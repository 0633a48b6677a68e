package bookprotocol

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/examples"
	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// sampleEnv opens the sample book in a fresh session.
func sampleEnv(t *testing.T) booktools.Env {
	t.Helper()
	return bookEnv(t, examples.Zvezdochkin)
}

// bookEnv opens src as the book "book" in a fresh session.
func bookEnv(t *testing.T, src []byte) booktools.Env {
	t.Helper()
	s := editor.New()
	s.Load("book", src)
	return booktools.Env{Session: s, Book: "book"}
}

// callOf builds a call of tool name with JSON arguments.
func callOf(t *testing.T, name, argsJSON string) *protocol.Call {
	t.Helper()
	v, err := agentctx.Decode([]byte(argsJSON))
	require.NoError(t, err)
	obj, ok := v.(*agentctx.Object)
	require.True(t, ok, "arguments must be an object")
	return &protocol.Call{Tool: name, Args: obj, ToolID: "run_call_1_0", Turn: 1}
}

// run runs activity name of acts with the arguments and scoped view.
func run(t *testing.T, acts map[string]protocol.Activity, name, argsJSON string, scoped protocol.Scoped) (protocol.Result, error) {
	t.Helper()
	act, ok := acts[name]
	require.True(t, ok, "activity %s", name)
	return act.Run(context.Background(), callOf(t, name, argsJSON), &protocol.Tool{Name: name}, scoped)
}

// mustRun runs an activity that must succeed and returns its value as
// plain JSON data.
func mustRun(t *testing.T, acts map[string]protocol.Activity, name, argsJSON string, scoped protocol.Scoped) map[string]any {
	t.Helper()
	res, err := run(t, acts, name, argsJSON, scoped)
	require.NoError(t, err)
	return plain(t, res.Value)
}

// plain converts an ordered value into map/slice form.
func plain(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := agentctx.Encode(v)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// modelError asserts err is an *Error with code and returns its message.
func modelError(t *testing.T, err error, code string) string {
	t.Helper()
	var e *Error
	require.True(t, errors.As(err, &e), "want *Error, got %v", err)
	require.Equal(t, code, e.Code, e.Message)
	return e.Message
}

// scopedOf builds the scoped view of granted over the messages, as the
// runtime does.
func scopedOf(msgs []agentctx.Message, instance string, granted ...string) protocol.Scoped {
	return protocol.NewScoped(protocol.Scope(agentctx.Context(msgs), instance, granted))
}

// batchWrite is the write read_cursor_batch's value makes at †batch.
func batchWrite(t *testing.T, value any) agentctx.Message {
	t.Helper()
	p, err := agentctx.ParseOutputPath("†batch")
	require.NoError(t, err)
	m, err := agentctx.Write{Path: p, Value: value}.Message()
	require.NoError(t, err)
	return m
}
