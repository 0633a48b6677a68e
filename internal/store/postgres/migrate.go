package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/aitexteditor/aite/internal/store"
)

const createVersionTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`

// migrate brings the schema up to the last of migs, applying each missing
// version in its own transaction together with its schema_migrations row.
// Each transaction first takes the advisory lock of lockKey and reads the
// version again, so nodes starting at once never apply a step twice. A
// schema newer than migs is refused, never downgraded.
func migrate(ctx context.Context, pool *pgxpool.Pool, lockKey string, migs []store.Migration) error {
	for {
		done, err := migrateStep(ctx, pool, lockKey, migs)
		if err != nil || done {
			return err
		}
	}
}

// migrateStep applies the next missing migration; done reports that there
// was none.
func migrateStep(ctx context.Context, pool *pgxpool.Pool, lockKey string, migs []store.Migration) (done bool, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, lockKey); err != nil {
			return fmt.Errorf("migrations: waiting for the migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, createVersionTable); err != nil {
			return fmt.Errorf("migrations: creating schema_migrations: %w", err)
		}
		var current int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return fmt.Errorf("migrations: reading the schema version: %w", err)
		}
		switch {
		case current > len(migs):
			return fmt.Errorf("migrations: the database has schema version %d, newer than this program's %d", current, len(migs))
		case current == len(migs):
			done = true
			return nil
		}
		m := migs[current]
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
			return fmt.Errorf("migration %d: recording it: %w", m.Version, err)
		}
		return nil
	})
	return done, err
}
