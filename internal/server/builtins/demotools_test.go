package builtins

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/tool"
)

func TestCount(t *testing.T) {
	tests := []struct {
		name, text string
		want       Counts
	}{
		{"empty", "", Counts{}},
		{"one sentence", "Hello, world.", Counts{Words: 2, Characters: 13, Lines: 1, Sentences: 1}},
		{"no final stop", "One. Two", Counts{Words: 2, Characters: 8, Lines: 1, Sentences: 2}},
		{"hyphen and apostrophe", "A well-known writer's pen!", Counts{Words: 4, Characters: 26, Lines: 1, Sentences: 1}},
		{"russian, lines", "Звёздочкин приехал.\nЧасы шли назад…\n", Counts{Words: 5, Characters: 36, Lines: 2, Sentences: 2}},
		{"ellipsis run", "Wait... what?!", Counts{Words: 2, Characters: 14, Lines: 1, Sentences: 2}},
		{"dash alone", "a - b", Counts{Words: 2, Characters: 5, Lines: 1, Sentences: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Count(tt.text))
		})
	}
}

// call runs the demo tool name with args.
func call(t *testing.T, name, args string) tool.Result {
	t.Helper()
	clock := func() time.Time { return time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC) }
	for _, tl := range newBackends(clock) {
		if tl.Name() == name {
			res, err := tl.Call(context.Background(), json.RawMessage(args))
			require.NoError(t, err)
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return tool.Result{}
}

func TestCurrentTime(t *testing.T) {
	res := call(t, ToolCurrentTime, `{}`)
	require.False(t, res.IsError, res.Text)
	require.JSONEq(t, `{"time":"2026-03-01T23:30:00Z","timezone":"UTC","weekday":"Sunday","unixMs":1772407800000}`, res.Text)

	if _, err := time.LoadLocation("Asia/Tokyo"); err == nil {
		res = call(t, ToolCurrentTime, `{"timezone": "Asia/Tokyo"}`)
		require.JSONEq(t, `{"time":"2026-03-02T08:30:00+09:00","timezone":"Asia/Tokyo","weekday":"Monday","unixMs":1772407800000}`, res.Text)
	}

	res = call(t, ToolCurrentTime, `{"timezone": "Mars/Olympus"}`)
	require.True(t, res.IsError)
	require.Equal(t, "invalid_arguments", res.Code)
	require.Contains(t, res.Text, "Mars/Olympus")
}

func TestWordCountTool(t *testing.T) {
	res := call(t, ToolWordCount, `{"text": "Two words."}`)
	require.JSONEq(t, `{"words":2,"characters":10,"lines":1,"sentences":1}`, res.Text)
	res = call(t, ToolWordCount, `{}`)
	require.True(t, res.IsError, "text is required")
	require.Equal(t, "invalid_arguments", res.Code)
}

func TestBackendsDescribed(t *testing.T) {
	for _, tl := range Backends() {
		require.NotEmpty(t, tl.Description(), tl.Name())
		var schema map[string]any
		require.NoError(t, json.Unmarshal(tl.Parameters(), &schema))
		require.Equal(t, "object", schema["type"])
	}
}
