package agentdef

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestViewports(t *testing.T) {
	d := newDirs(t)
	write(t, d.Viewports, map[string]string{
		"Form.html": "<form>\n</form>",
		"chart.qlc": "{\n  \"type\": \"chart\",\n  \"series\": [1, 2]\n}",
		"bad.qlc":   `{"type": `,
		"list.qlc":  `[1, 2]`,
		"form.qlc":  `{"dup": true}`,
		"notes.txt": "x",
	})
	s, ws := load(t, d)
	keys := []string{}
	for _, v := range s.Viewports() {
		keys = append(keys, v.Key)
	}
	require.Equal(t, []string{"chart", "form"}, keys, dump(ws))

	form, ok := s.Viewport("FORM")
	require.True(t, ok)
	require.Equal(t, ViewportDef{Key: "form", Kind: ViewportHTML, HTML: "<form>\n</form>", File: filepath.Join(d.Viewports, "Form.html")}, form)
	require.Equal(t, "<form>\n</form>", form.Payload())

	chart, _ := s.Viewport("chart")
	require.Equal(t, ViewportQLC, chart.Kind)
	require.Equal(t, json.RawMessage(`{"type":"chart","series":[1,2]}`), chart.Payload())

	_, ok = s.Viewport("bad")
	require.False(t, ok, "invalid qlc is skipped")
	f := func(name string) string { return filepath.Join(d.Viewports, name) }
	require.True(t, requireWarning(t, ws, f("bad.qlc"), "", "invalid JSON").Rejected)
	requireWarning(t, ws, f("list.qlc"), "", "expected a JSON object")
	requireWarning(t, ws, f("form.qlc"), "", "duplicate viewport key")
	requireWarning(t, ws, f("notes.txt"), "", "ignored")
}

func TestMissingDirsAtFirstLoad(t *testing.T) {
	root := t.TempDir()
	s, ws := Load(Dirs{Agents: filepath.Join(root, "nope"), Tools: ""}, testModels, nil)
	require.Empty(t, s.Agents())
	require.Empty(t, s.Tools())
	require.Len(t, ws, 1)
	require.Contains(t, ws[0].Reason, "directory not read")
}
