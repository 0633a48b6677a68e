package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

var bg = context.Background()

func TestEmbeddedMigrations(t *testing.T) {
	migs, err := embeddedMigrations()
	require.NoError(t, err)
	var names []string
	for i, m := range migs {
		require.Equal(t, i+1, m.Version)
		names = append(names, m.Name)
	}
	require.Equal(t, []string{"history", "documents", "task_states", "document_item_ids", "document_splices", "owners", "document_data", "document_journal"}, names)
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

// openTemp opens a new store in a temporary directory, closed at the end of the test.
func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "aite.db"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func TestMigrateUpgradesAnOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAt(t, path, 1)
	require.Equal(t, []int{1}, appliedVersions(t, old))
	_, err := old.w.ExecContext(bg, `INSERT INTO chats (chat_id, chat_name, agent_key, document_id, created_at, updated_at,
		last_run_id, last_run_content, read_status, read_at) VALUES ('c1', 'from v1', '', '', 0, 0, '', '', 0, NULL)`)
	require.NoError(t, err, "a chat as version 1 stored it")
	_, err = old.CreateDocument(bg, store.Document{ID: "d1"})
	require.Error(t, err, "version 1 has no documents table")
	require.NoError(t, old.Close())

	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8}, appliedVersions(t, s))
	chat, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, "from v1", chat.Name, "the upgrade kept the data")
	require.Empty(t, chat.Owner, "rows from before the owners step belong to nobody")
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
		require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8}, appliedVersions(t, s))
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
	migs := []store.Migration{
		{Version: 1, Name: "good", SQL: `CREATE TABLE a (x INTEGER) STRICT`},
		{Version: 2, Name: "bad", SQL: `CREATE TABLE b (x INTEGER); INSERT INTO a VALUES (1); THIS IS NOT SQL`},
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

func TestMigrateAddsItemIDsToExistingDocuments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v3.db")
	old := openAt(t, path, 3)
	at := time.Date(2026, 2, 12, 11, 0, 0, 0, time.UTC)
	_, err := old.CreateDocument(bg, store.Document{ID: "d1", Name: "old", Markdown: "# A\n\nB.\n", ItemCount: 2,
		CreatedAt: at, UpdatedAt: at})
	require.Error(t, err, "version 3 has no item_ids column")
	_, err = old.w.ExecContext(bg, `INSERT INTO documents (document_id, name, markdown, revision, item_count, size_bytes,
		created_at, updated_at) VALUES ('d1', 'old', ?, 1, 2, 8, 0, 0)`, "# A\n\nB.\n")
	require.NoError(t, err)
	require.NoError(t, old.Close())

	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8}, appliedVersions(t, s))
	d, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, "# A\n\nB.\n", d.Markdown, "the upgrade kept the document")
	require.Equal(t, 1, d.Revision)
	require.Nil(t, d.ItemIDs, "a document from before the upgrade has no recorded IDs")
	require.Zero(t, d.NextItemID)

	c := store.DocumentContent{Markdown: "# A\n\nC.\n\nB.\n", ItemCount: 3, ItemIDs: []int{1, 3, 2}, NextItemID: 4}
	_, err = s.ApplyDocumentEdit(bg, "d1", c, store.DocumentEdit{Revision: 2, Op: "insert_before", At: at})
	require.NoError(t, err)
	d, err = s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, []int{1, 3, 2}, d.ItemIDs)
	require.Equal(t, 4, d.NextItemID)
}

func TestMigrateKeepsOldEditsWithoutSplice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	old := openAt(t, path, 4)
	_, err := old.w.ExecContext(bg, `INSERT INTO documents (document_id, name, markdown, revision, item_count, size_bytes,
		created_at, updated_at) VALUES ('d1', 'old', 'B.', 1, 1, 2, 0, 0)`)
	require.NoError(t, err)
	_, err = old.w.ExecContext(bg, `INSERT INTO document_edits (document_id, revision, op, at) VALUES ('d1', 1, 'replace', 0)`)
	require.NoError(t, err)
	require.NoError(t, old.Close())

	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	edits, err := s.ListDocumentEdits(bg, "d1", 0)
	require.NoError(t, err)
	require.Len(t, edits, 1)
	require.Nil(t, edits[0].Splice, "an edit from before the upgrade has no recorded splice")
}
