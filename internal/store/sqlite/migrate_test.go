package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

var bg = context.Background()

func TestEmbeddedMigrations(t *testing.T) {
	migs, err := embeddedMigrations()
	require.NoError(t, err)
	var names []string
	for i, m := range migs {
		require.Equal(t, i+1, m.version)
		names = append(names, m.name)
	}
	require.Equal(t, []string{"history", "documents", "task_states"}, names)
}

func TestLoadMigrationsRejects(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	cases := map[string]fstest.MapFS{
		"gap":       {"m/0001_a.sql": file("SELECT 1"), "m/0003_c.sql": file("SELECT 1")},
		"repeat":    {"m/0001_a.sql": file("SELECT 1"), "m/001_b.sql": file("SELECT 1")},
		"no number": {"m/init.sql": file("SELECT 1")},
		"zero":      {"m/0000_a.sql": file("SELECT 1")},
	}
	for name, fsys := range cases {
		_, err := loadMigrations(fsys, "m")
		require.Error(t, err, name)
	}
	migs, err := loadMigrations(fstest.MapFS{"m/0001_a.sql": file("SELECT 1"), "m/README.md": file("x")}, "m")
	require.NoError(t, err)
	require.Len(t, migs, 1, "only .sql files count")
}

// appliedVersions reads schema_migrations.
func appliedVersions(t *testing.T, s *Store) []int {
	t.Helper()
	rows, err := s.r.QueryContext(bg, `SELECT version FROM schema_migrations ORDER BY version`)
	require.NoError(t, err)
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		require.NoError(t, rows.Scan(&v))
		out = append(out, v)
	}
	require.NoError(t, rows.Err())
	return out
}

// openAt opens path migrated only up to version n (an older program's database).
func openAt(t *testing.T, path string, n int) *Store {
	t.Helper()
	migs, err := embeddedMigrations()
	require.NoError(t, err)
	s, err := open(bg, path, defaultConfig(), migs[:n])
	require.NoError(t, err)
	return s
}

func TestMigrateUpgradesAnOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAt(t, path, 1)
	require.Equal(t, []int{1}, appliedVersions(t, old))
	require.NoError(t, old.CreateChat(bg, store.Chat{ID: "c1", Name: "from v1"}))
	_, err := old.CreateDocument(bg, store.Document{ID: "d1"})
	require.Error(t, err, "version 1 has no documents table")
	require.NoError(t, old.Close())

	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, []int{1, 2, 3}, appliedVersions(t, s))
	chat, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, "from v1", chat.Name, "the upgrade kept the data")
	_, err = s.CreateDocument(bg, store.Document{ID: "d1"})
	require.NoError(t, err)
	require.NoError(t, s.SaveTask(bg, "t1", []byte(`{}`), chat.CreatedAt))
}

func TestMigrateIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aite.db")
	var firstApplied []int64
	for range 3 {
		s, err := Open(path)
		require.NoError(t, err)
		require.Equal(t, []int{1, 2, 3}, appliedVersions(t, s))
		var applied []int64
		rows, err := s.r.QueryContext(bg, `SELECT applied_at FROM schema_migrations ORDER BY version`)
		require.NoError(t, err)
		for rows.Next() {
			var at int64
			require.NoError(t, rows.Scan(&at))
			applied = append(applied, at)
		}
		require.NoError(t, rows.Close())
		if firstApplied == nil {
			firstApplied = applied
		}
		require.Equal(t, firstApplied, applied, "reopening applies nothing again")
		require.NoError(t, s.Close())
	}
}

func TestMigrateRefusesANewerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aite.db")
	s, err := Open(path)
	require.NoError(t, err)
	_, err = s.w.ExecContext(bg, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)`)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = Open(path)
	require.ErrorContains(t, err, "newer than this program")
}

func TestFailedMigrationLeavesNoTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aite.db")
	migs := []migration{
		{version: 1, name: "good", sql: `CREATE TABLE a (x INTEGER) STRICT`},
		{version: 2, name: "bad", sql: `CREATE TABLE b (x INTEGER); INSERT INTO a VALUES (1); THIS IS NOT SQL`},
	}
	_, err := open(bg, path, defaultConfig(), migs)
	require.ErrorContains(t, err, "0002_bad")

	s, err := open(bg, path, defaultConfig(), migs[:1])
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, []int{1}, appliedVersions(t, s))
	var n int
	require.NoError(t, s.r.QueryRowContext(bg, `SELECT count(*) FROM a`).Scan(&n))
	require.Zero(t, n, "the failed step's insert was rolled back")
	err = s.r.QueryRowContext(bg, `SELECT count(*) FROM b`).Scan(&n)
	require.Error(t, err, "the failed step's table was rolled back")
	require.NotErrorIs(t, err, sql.ErrNoRows)
}
