package tool

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

type readParams struct {
	Pointer string `json:"pointer" jsonschema:"the item to read"`
	Before  int    `json:"before,omitempty" jsonschema:"items before"`
}

func readTool(t *testing.T) Tool {
	tl, err := New("editor-read", "Reads an item.", func(_ context.Context, p readParams) (Result, error) {
		if p.Pointer == "boom" {
			return Result{}, errors.New("storage broke")
		}
		if p.Pointer == "bad" {
			return Errorf("not_found", "no item %q", p.Pointer), nil
		}
		return Result{Text: "read " + p.Pointer}, nil
	})
	require.NoError(t, err)
	return tl
}

func TestTypedTool(t *testing.T) {
	tl := readTool(t)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(tl.Parameters(), &schema))
	require.Equal(t, "object", schema["type"])
	require.Equal(t, []any{"pointer"}, schema["required"])
	props := schema["properties"].(map[string]any)
	require.Equal(t, "the item to read", props["pointer"].(map[string]any)["description"])

	ctx := context.Background()
	res, err := tl.Call(ctx, json.RawMessage(`{"pointer":"1.p2"}`))
	require.NoError(t, err)
	require.Equal(t, Result{Text: "read 1.p2"}, res)

	for _, args := range []string{`{"before":1}`, `{"pointer":[3]}`, `{"pointer":"x","extra":1}`, `not json`, `[]`} {
		res, err := tl.Call(ctx, json.RawMessage(args))
		require.NoError(t, err, "invalid arguments are a result, not an error")
		require.True(t, res.IsError, args)
		require.Equal(t, "invalid_arguments", res.Code, args)
		require.Contains(t, res.Text, "editor-read")
	}
	res, err = tl.Call(ctx, json.RawMessage(`{"pointer":"bad"}`))
	require.NoError(t, err)
	require.True(t, res.IsError)
	_, err = tl.Call(ctx, json.RawMessage(`{"pointer":"boom"}`))
	require.Error(t, err, "infrastructure failures are Go errors")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = tl.Call(cctx, json.RawMessage(`{"pointer":"x"}`))
	require.ErrorIs(t, err, context.Canceled)
}

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(readTool(t))
	require.NoError(t, err)
	_, err = NewRegistry(readTool(t), readTool(t))
	require.ErrorIs(t, err, ErrDuplicate)
	res, err := r.Call(context.Background(), "editor-raed", nil)
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Equal(t, "tool_not_enabled", res.Code)
	require.Contains(t, res.Text, "editor-read")
	require.Len(t, r.LLMTools(), 1)
	require.Equal(t, "editor-read", r.LLMTools()[0].Name)
}

func TestProgress(t *testing.T) {
	var got []Progress
	ctx := WithReporter(context.Background(), func(p Progress) { got = append(got, p) })
	Report(ctx, Progress{Kind: "batch", Message: "1 of 3"})
	Report(context.Background(), Progress{Kind: "lost"})
	require.Equal(t, []Progress{{Kind: "batch", Message: "1 of 3"}}, got)
}
