package models

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// envMap is an injectable environment.
type envMap map[string]string

func (e envMap) get(k string) string { return e[k] }

// write creates path (and its directories) with content.
func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// load runs Load in workDir with env and no other outside influence.
func load(t *testing.T, workDir string, env envMap) (*Registry, []Warning) {
	t.Helper()
	r, ws, err := Load(LoadOptions{WorkDir: workDir, Env: env.get})
	require.NoError(t, err)
	return r, ws
}

// warningFor returns the warnings about file (matched by base name).
func warningFor(ws []Warning, file string) []Warning {
	var out []Warning
	for _, w := range ws {
		if filepath.Base(w.File) == file {
			out = append(out, w)
		}
	}
	return out
}

// requireWarning checks that exactly one warning concerns file, naming
// field and containing fragment.
func requireWarning(t *testing.T, ws []Warning, file, field, fragment string) {
	t.Helper()
	got := warningFor(ws, file)
	require.Len(t, got, 1, "warnings for %s: %v", file, ws)
	require.Equal(t, field, got[0].Field, "field of %v", got[0])
	require.Contains(t, got[0].Message, fragment)
	prefix := got[0].File + ": "
	if field != "" {
		prefix += field + ": "
	}
	require.True(t, strings.HasPrefix(got[0].String(), prefix), got[0].String())
}
