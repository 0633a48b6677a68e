package agentdef

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWriteBuiltins(t *testing.T) {
	d := newDirs(t)
	write(t, d.Agents, map[string]string{"bookEditor.json": "old", "mine.json": "mine"})
	write(t, d.Skills, map[string]string{"pdf/notes.md": "user notes"})
	files := fstest.MapFS{
		"agents/bookEditor.json":  {Data: []byte(ag(`"key": "bookEditor"`))},
		"tools/edit.backend":      {Data: []byte(`{"tools": []}`)},
		"skills/pdf/SKILL.md":     {Data: []byte("pdf")},
		"skills/pdf/scripts/a.sh": {Data: []byte("echo")},
		"viewports/form.html":     {Data: []byte("<form>")},
		"models/m.json":           {Data: []byte(`{}`)},
	}
	require.NoError(t, WriteBuiltins(d, files))
	read := func(path string) string {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(b)
	}
	require.Equal(t, ag(`"key": "bookEditor"`), read(filepath.Join(d.Agents, "bookEditor.json")), "replaced")
	require.Equal(t, "mine", read(filepath.Join(d.Agents, "mine.json")), "kept")
	require.Equal(t, "user notes", read(filepath.Join(d.Skills, "pdf", "notes.md")), "kept")
	require.Equal(t, "echo", read(filepath.Join(d.Skills, "pdf", "scripts", "a.sh")))
	require.Equal(t, "<form>", read(filepath.Join(d.Viewports, "form.html")))
	require.Equal(t, "{}", read(filepath.Join(d.Models, "m.json")))
	require.Equal(t, `{"tools": []}`, read(filepath.Join(d.Tools, "edit.backend")))

	// An unchanged file is not rewritten (a watcher sees no change).
	path := filepath.Join(d.Agents, "bookEditor.json")
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(path, past, past))
	require.NoError(t, WriteBuiltins(d, files))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.True(t, fi.ModTime().Equal(past))

	entries, err := os.ReadDir(d.Agents)
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary files are left")
	s, ws := load(t, d)
	_, ok := s.Agent("bookEditor")
	require.True(t, ok, dump(ws))
}

func TestWriteBuiltinsErrors(t *testing.T) {
	d := newDirs(t)
	d.Viewports = ""
	files := fstest.MapFS{
		"other/x.json":        {Data: []byte("x")},
		"README.md":           {Data: []byte("x")},
		"viewports/form.html": {Data: []byte("<form>")},
		"agents/a.json":       {Data: []byte("{}")},
	}
	err := WriteBuiltins(d, files)
	require.ErrorContains(t, err, "other/x.json")
	require.ErrorContains(t, err, "README.md")
	_, statErr := os.Stat(filepath.Join(d.Agents, "a.json"))
	require.NoError(t, statErr, "the other files are still written")
}
