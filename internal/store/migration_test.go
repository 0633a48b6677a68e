package store_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

func TestLoadMigrationsRejects(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	cases := map[string]fstest.MapFS{
		"gap":       {"m/0001_a.sql": file("SELECT 1"), "m/0003_c.sql": file("SELECT 1")},
		"repeat":    {"m/0001_a.sql": file("SELECT 1"), "m/001_b.sql": file("SELECT 1")},
		"no number": {"m/init.sql": file("SELECT 1")},
		"zero":      {"m/0000_a.sql": file("SELECT 1")},
	}
	for name, fsys := range cases {
		_, err := store.LoadMigrations(fsys, "m")
		require.Error(t, err, name)
	}
	migs, err := store.LoadMigrations(fstest.MapFS{"m/0001_a.sql": file("SELECT 1"), "m/README.md": file("x")}, "m")
	require.NoError(t, err)
	require.Equal(t, []store.Migration{{Version: 1, Name: "a", SQL: "SELECT 1"}}, migs, "only .sql files count")
}
