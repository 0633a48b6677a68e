package agentdef

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/llm/models"
)

// fakeModels knows the model keys it holds.
type fakeModels map[string]bool

func (f fakeModels) Model(key string) (models.Model, error) {
	if f[key] {
		return models.Model{Key: key, Provider: "openai", ModelID: key}, nil
	}
	return models.Model{}, fmt.Errorf("%w %q", models.ErrUnknownModel, key)
}

var (
	testModels   = fakeModels{"m1": true, "m2": true}
	testBackends = map[string]bool{"search": true, "read": true, "Edit": true}
)

// newDirs makes the four definition dirs (and models) in a temp dir.
func newDirs(t *testing.T) Dirs {
	t.Helper()
	root := t.TempDir()
	d := Dirs{Agents: filepath.Join(root, "agents"), Tools: filepath.Join(root, "tools"),
		Skills: filepath.Join(root, "skills"), Viewports: filepath.Join(root, "viewports"), Models: filepath.Join(root, "models")}
	for _, dir := range []string{d.Agents, d.Tools, d.Skills, d.Viewports, d.Models} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	return d
}

// write writes files (name → content) below dir, creating subdirectories.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func load(t *testing.T, d Dirs) (*Snapshot, []Warning) {
	t.Helper()
	return Load(d, testModels, testBackends)
}

// rejected returns the rejection warnings.
func rejected(ws []Warning) []Warning {
	var out []Warning
	for _, w := range ws {
		if w.Rejected {
			out = append(out, w)
		}
	}
	return out
}

// findWarning returns the first warning about file and field.
func findWarning(ws []Warning, file, field string) (Warning, bool) {
	for _, w := range ws {
		if w.File == file && w.Field == field {
			return w, true
		}
	}
	return Warning{}, false
}

// requireWarning fails unless a warning about file and field contains text.
func requireWarning(t *testing.T, ws []Warning, file, field, text string) Warning {
	t.Helper()
	w, ok := findWarning(ws, file, field)
	require.True(t, ok, "no warning for %s %s in:\n%s", file, field, dump(ws))
	require.Contains(t, w.Reason, text)
	return w
}

func dump(ws []Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}

// ag returns a valid ONESHOT agent file with more top-level fields; a
// field written again replaces the base one (the last one counts).
func ag(more string) string {
	s := `{"name": "A", "mode": "ONESHOT", "modelConfig": {"modelKey": "m1"}, "plain": {"systemPrompt": "p"}`
	if more != "" {
		s += ", " + more
	}
	return s + "}"
}

// pe returns a valid PLAN_EXECUTE agent file with more top-level fields.
func pe(more string) string {
	s := `{"name": "P", "mode": "PLAN_EXECUTE", "modelConfig": {"modelKey": "m1"},
		"planExecute": {"plan": {"systemPrompt": "plan"}, "execute": {"systemPrompt": "exec"}}`
	if more != "" {
		s += ", " + more
	}
	return s + "}"
}
