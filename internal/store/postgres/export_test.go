package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/aitexteditor/aite/internal/store"
)

// MigrateTo applies the first n embedded migrations to the current schema
// of dsn, as an older binary would have left it (tests of upgrades).
func MigrateTo(ctx context.Context, dsn string, n int) error {
	migs, err := store.LoadMigrations(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	return migrate(ctx, pool, "test/migrate", migs[:n])
}
