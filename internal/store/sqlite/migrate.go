package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"time"

	"github.com/aitexteditor/aite/internal/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// embeddedMigrations returns the migrations compiled into the binary.
func embeddedMigrations() ([]store.Migration, error) {
	return store.LoadMigrations(migrationFiles, "migrations")
}

const createVersionTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
) STRICT`

// migrate brings the database up to the last of migs, applying each missing version in its
// own transaction together with its schema_migrations row. The version check runs inside the
// (immediate) transaction, so two processes opening the same file never apply a step twice.
// A database whose version is newer than migs knows is refused, never downgraded.
func migrate(ctx context.Context, db *sql.DB, migs []store.Migration) error {
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

func applyMigration(ctx context.Context, db *sql.DB, m store.Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %d: %w", m.Version, err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&done); err != nil {
		return fmt.Errorf("migration %d: %w", m.Version, err)
	}
	if done > 0 {
		return nil // another process applied it meanwhile
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.Version, m.Name, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("migration %d: recording it: %w", m.Version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %d: commit: %w", m.Version, err)
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
