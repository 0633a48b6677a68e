package tool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

type cursorParams struct {
	Keywords []string `json:"keywords" jsonschema:"keywords"`
	Headings bool     `json:"includeHeadings,omitempty" default:"true" jsonschema:"include headings"`
	Limit    *int     `json:"limit,omitempty" jsonschema:"a limit"`
	Mode     string   `json:"mode,omitempty" default:"\"ranked\"" enum:"ranked,exact" jsonschema:"the mode"`
	Nested   []struct {
		Tags []string `json:"tags,omitempty"`
	} `json:"nested,omitempty"`
}

// TestSchemaOneTypePerProperty: pointer and slice fields are not nullable,
// at any depth; defaults and enums come from the tags.
func TestSchemaOneTypePerProperty(t *testing.T) {
	var got cursorParams
	tl, err := New("cursor", "Makes a cursor.", func(_ context.Context, p cursorParams) (Result, error) {
		got = p
		return Result{Text: "ok"}, nil
	})
	require.NoError(t, err)
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	require.NoError(t, json.Unmarshal(tl.Parameters(), &schema))
	want := map[string]string{"keywords": "array", "includeHeadings": "boolean", "limit": "integer", "mode": "string", "nested": "array"}
	for name, typ := range want {
		require.Equal(t, typ, schema.Properties[name]["type"], name)
	}
	require.Equal(t, "array", schema.Properties["nested"]["items"].(map[string]any)["properties"].(map[string]any)["tags"].(map[string]any)["type"])
	require.Equal(t, true, schema.Properties["includeHeadings"]["default"])
	require.Equal(t, "ranked", schema.Properties["mode"]["default"])
	require.Equal(t, []any{"ranked", "exact"}, schema.Properties["mode"]["enum"])
	require.NotContains(t, string(tl.Parameters()), "null")
	require.Equal(t, []string{"keywords"}, schema.Required)

	ctx := context.Background()
	res, err := tl.Call(ctx, json.RawMessage(`{"keywords":["a"]}`))
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text)
	require.Equal(t, cursorParams{Keywords: []string{"a"}, Headings: true, Mode: "ranked"}, got, "absent arguments get their defaults")
	_, err = tl.Call(ctx, json.RawMessage(`{"keywords":["a"],"includeHeadings":false,"mode":"exact"}`))
	require.NoError(t, err)
	require.Equal(t, cursorParams{Keywords: []string{"a"}, Mode: "exact"}, got, "given arguments win over defaults")

	for _, args := range []string{`{"keywords":null}`, `{"keywords":["a"],"includeHeadings":null}`, `{"keywords":["a"],"mode":"fuzzy"}`} {
		res, err := tl.Call(ctx, json.RawMessage(args))
		require.NoError(t, err)
		require.True(t, res.IsError, args)
		require.Equal(t, "invalid_arguments", res.Code, args)
	}
}

func TestSchemaBadDefaultTag(t *testing.T) {
	type bad struct {
		N int `json:"n,omitempty" default:"two"`
	}
	_, err := New("bad", "", func(context.Context, bad) (Result, error) { return Result{}, nil })
	require.ErrorContains(t, err, "not JSON")
	type wrongType struct {
		N int `json:"n,omitempty" default:"\"two\""`
	}
	_, err = New("bad", "", func(context.Context, wrongType) (Result, error) { return Result{}, nil })
	require.Error(t, err, "a default the schema refuses is a schema error")
}

func TestCheck(t *testing.T) {
	calls := 0
	tl, err := New("cursor", "Makes a cursor.", func(context.Context, cursorParams) (Result, error) {
		calls++
		return Result{}, nil
	})
	require.NoError(t, err)
	args, bad, err := Check(tl, json.RawMessage(`{"keywords":["a"]}`))
	require.NoError(t, err)
	require.Nil(t, bad)
	require.JSONEq(t, `{"keywords":["a"],"includeHeadings":true,"mode":"ranked"}`, string(args))
	_, bad, err = Check(tl, json.RawMessage(`{"keywords":"a"}`))
	require.NoError(t, err)
	require.Equal(t, "invalid_arguments", bad.Code)
	res, err := tl.Call(context.Background(), json.RawMessage(`{"keywords":"a"}`))
	require.NoError(t, err)
	require.Equal(t, *bad, res, "Check refuses with exactly the result Call gives")
	require.Zero(t, calls, "Check never runs the handler")
}

// TestNumberForAString: a number sent for a string parameter (a pointer's
// bare ID) is taken as its text; other wrong types are still refused.
func TestNumberForAString(t *testing.T) {
	var got readParams
	tl, err := New("editor-read", "Reads.", func(_ context.Context, p readParams) (Result, error) {
		got = p
		return Result{}, nil
	})
	require.NoError(t, err)
	for args, want := range map[string]string{`{"pointer":24}`: "24", `{"pointer": 1.5 }`: "1.5", `{"pointer":"24:1.p3"}`: "24:1.p3"} {
		res, err := tl.Call(context.Background(), json.RawMessage(args))
		require.NoError(t, err)
		require.False(t, res.IsError, res.Text)
		require.Equal(t, want, got.Pointer, args)
	}
	res, err := tl.Call(context.Background(), json.RawMessage(`{"pointer":true}`))
	require.NoError(t, err)
	require.Equal(t, "invalid_arguments", res.Code)
	res, err = tl.Call(context.Background(), json.RawMessage(`{"pointer":"1","before":"2"}`))
	require.NoError(t, err)
	require.Equal(t, "invalid_arguments", res.Code, "only strings are lenient")
}
