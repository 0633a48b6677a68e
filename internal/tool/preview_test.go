package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/tool"
)

// The edit preview has one shape: the book tools write it in key order,
// the solution protocol in its own order (Pairs), and the readers take
// either; a preview that is not an edit's is no preview.
func TestEditPreview(t *testing.T) {
	pv := tool.EditPreview{Pointer: "2:1.p1", Op: "replace", OldMarkdown: "a <b>", NewMarkdown: "c"}
	b, err := json.Marshal(pv)
	require.NoError(t, err)
	m, err := json.Marshal(map[string]string{"pointer": "2:1.p1", "op": "replace", "oldMarkdown": "a <b>", "newMarkdown": "c"})
	require.NoError(t, err)
	require.Equal(t, string(m), string(b), "the book tools' bytes, as when they wrote a map")
	require.Equal(t, []any{"pointer", "2:1.p1", "op", "replace", "oldMarkdown", "a <b>", "newMarkdown", "c"}, pv.Pairs())

	for raw, want := range map[string]bool{
		string(b): true,
		`{"pointer":"2:1.p1","op":"replace","oldMarkdown":"a <b>","newMarkdown":"c"}`: true,
		`{"op":"delete"}`: true,
		`{"answer":"x"}`:  false,
		``:                false,
		`not json`:        false,
		`{"pointer":17}`:  false,
	} {
		got, ok := tool.ParseEditPreview(json.RawMessage(raw))
		require.Equal(t, want, ok, raw)
		if raw == string(b) {
			require.Equal(t, pv, got)
		}
	}
}
