package postgres_test

import (
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/store/postgres"
	"github.com/aitexteditor/aite/internal/store/postgres/pgtest"
	"github.com/aitexteditor/aite/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	pgtest.BaseDSN(t)
	storetest.Run(t, func(t *testing.T) store.Store { return pgtest.Open(t, pgtest.DSN(t), "") })
}

// TestOpenMigratesOnce opens five nodes at once on a new schema: each step
// is applied once, and every node works.
func TestOpenMigratesOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	var wg sync.WaitGroup
	stores := make([]*postgres.Store, 5)
	for i := range stores {
		wg.Go(func() { stores[i] = pgtest.Open(t, dsn, "") })
	}
	wg.Wait()
	conn, err := pgx.Connect(bg, dsn)
	require.NoError(t, err)
	defer conn.Close(bg)
	var versions []int
	rows, err := conn.Query(bg, `SELECT version FROM schema_migrations ORDER BY version`)
	require.NoError(t, err)
	for rows.Next() {
		var v int
		require.NoError(t, rows.Scan(&v))
		versions = append(versions, v)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []int{1, 2, 3, 4, 5}, versions)
	for i, s := range stores {
		require.NotEqual(t, stores[(i+1)%len(stores)].Node(), s.Node(), "default node names are unique")
		require.NoError(t, s.SaveTask(bg, s.Node(), []byte(`{}`), t0))
	}

	_, err = conn.Exec(bg, `INSERT INTO schema_migrations (version, name) VALUES (99, 'future')`)
	require.NoError(t, err)
	_, err = postgres.Open(bg, dsn, postgres.Options{})
	require.ErrorContains(t, err, "newer than this program")
}

// TestMigrateUpgradesAnOldSchema opens a schema at version 1: the later
// steps keep its data, edits stored before splices were recorded have
// none, and a schema of the first build of this backend, whose version 1
// already had the owner columns, upgrades too.
func TestMigrateUpgradesAnOldSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	require.NoError(t, postgres.MigrateTo(bg, dsn, 1))
	conn, err := pgx.Connect(bg, dsn)
	require.NoError(t, err)
	defer conn.Close(bg)
	for _, q := range []string{
		`ALTER TABLE chats ADD COLUMN owner TEXT COLLATE "C" NOT NULL DEFAULT ''`,
		`INSERT INTO documents (document_id, name, markdown, revision, item_count, size_bytes, created_at, updated_at)
			VALUES ('d1', 'old', 'B.', 1, 1, 2, 0, 0)`,
		`INSERT INTO document_edits (document_id, revision, op, at) VALUES ('d1', 1, 'replace', 0)`,
	} {
		_, err := conn.Exec(bg, q)
		require.NoError(t, err, q)
	}

	s := pgtest.Open(t, dsn, "")
	d, err := s.GetDocument(bg, "d1")
	require.NoError(t, err)
	require.Equal(t, "B.", d.Markdown, "the upgrade kept the document")
	require.Empty(t, d.Owner)
	edits, err := s.ListDocumentEdits(bg, "d1", 0)
	require.NoError(t, err)
	require.Len(t, edits, 1)
	require.Nil(t, edits[0].Splice, "an edit from before the upgrade has no recorded splice")
	require.Nil(t, edits[0].RevertedTo)
	require.NoError(t, s.CreateChat(bg, store.Chat{ID: "c1", Name: "mine", AgentKey: "a", CreatedAt: t0, UpdatedAt: t0, Owner: "ann"}))
	chat, err := s.GetChat(bg, "c1")
	require.NoError(t, err)
	require.Equal(t, "ann", chat.Owner)
}

func TestOpenRejects(t *testing.T) {
	base := pgtest.BaseDSN(t)
	_, err := postgres.Open(bg, pgtest.WithSchema(base, "no_such_schema"), postgres.Options{})
	require.ErrorContains(t, err, "CREATE SCHEMA")
	_, err = postgres.Open(bg, "postgres://user:secret@[::1", postgres.Options{})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "secret", "the password is not repeated")
}

func TestIsDSN(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://u@h/db": true, " PostgreSQL://h/db": true, "aite.db": false, "/var/aite.db": false,
		"postgres.db": false, "": false,
	} {
		require.Equal(t, want, postgres.IsDSN(in), in)
	}
}
