package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step, read from migrations/NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads the *.sql files of dir in fsys. Their names must start with a version
// number; the versions must run 1, 2, 3 … without gaps or repeats.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var migs []migration
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		base := strings.TrimSuffix(e.Name(), ".sql")
		num, name, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s: the name must start with a positive version number", e.Name())
		}
		text, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		migs = append(migs, migration{version: v, name: name, sql: string(text)})
	}
	// fs.ReadDir sorts by name and the numbers are zero-padded, but check the sequence anyway.
	for i, m := range migs {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %04d_%s: expected version %d (versions must run 1, 2, 3 … without gaps)", m.version, m.name, i+1)
		}
	}
	return migs, nil
}

// embeddedMigrations returns the migrations compiled into the binary.
func embeddedMigrations() ([]migration, error) { return loadMigrations(migrationFiles, "migrations") }

const createVersionTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
) STRICT`

// migrate brings the database up to the last of migs, applying each missing version in its
// own transaction together with its schema_migrations row. The version check runs inside the
// (immediate) transaction, so two processes opening the same file never apply a step twice.
// A database whose version is newer than migs knows is refused, never downgraded.
func migrate(ctx context.Context, db *sql.DB, migs []migration) error {
	if _, err := db.ExecContext(ctx, createVersionTable); err != nil {
		return fmt.Errorf("migrations: creating schema_migrations: %w", err)
	}
	current, err := schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	if current > len(migs) {
		return fmt.Errorf("migrations: the database has schema version %d, newer than this program's %d", current, len(migs))
	}
	for _, m := range migs[current:] {
		if err := applyMigration(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %d: %w", m.version, err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&done); err != nil {
		return fmt.Errorf("migration %d: %w", m.version, err)
	}
	if done > 0 {
		return nil // another process applied it meanwhile
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %04d_%s: %w", m.version, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("migration %d: recording it: %w", m.version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %d: commit: %w", m.version, err)
	}
	return nil
}

// schemaVersion returns the highest applied migration version, 0 for a new database.
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("migrations: reading the schema version: %w", err)
	}
	return v, nil
}
