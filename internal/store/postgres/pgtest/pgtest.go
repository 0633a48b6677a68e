// Package pgtest gives each test a PostgreSQL database of its own: a new, empty schema in the
// database named by $AITE_TEST_POSTGRES, dropped when the test ends. `.ci/run` starts a
// throwaway PostgreSQL server and sets the variable; a developer may point it at any server
// where the user may create schemas, e.g.
//
//	AITE_TEST_POSTGRES='postgres://postgres@/postgres?host=/tmp/pg' go test ./internal/store/postgres/
//
// Without the variable the tests that need PostgreSQL are skipped with a message, except when
// $CI is set (as in CI): then they fail, so CI never passes without running them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/aitexteditor/aite/internal/store/postgres"
)

// EnvDSN names the variable holding the test server's DSN.
const EnvDSN = "AITE_TEST_POSTGRES"

// BaseDSN returns $AITE_TEST_POSTGRES; without it the test is skipped, or
// fails when $CI is set.
func BaseDSN(t testing.TB) string {
	t.Helper()
	dsn := strings.TrimSpace(os.Getenv(EnvDSN))
	if dsn != "" {
		return dsn
	}
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatalf("CI=%s but %s is not set: CI must run the PostgreSQL tests (.ci/run starts a server)", ci, EnvDSN)
	}
	t.Skipf("no PostgreSQL for this test: set %s=postgres://… (.ci/run starts a throwaway server)", EnvDSN)
	return ""
}

// DSN returns a DSN of the test server whose search_path is a new, empty
// schema, dropped (with everything in it) when the test ends.
func DSN(t testing.TB) string {
	t.Helper()
	base := BaseDSN(t)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "aite_test_" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connecting to %s: %v", EnvDSN, err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: dropping schema %s: %v", schema, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("pgtest: dropping schema %s: %v", schema, err)
		}
	})
	return WithSchema(base, schema)
}

// WithSchema returns dsn with its search_path set to schema (a URL gets a
// query parameter, key=value pairs one more pair).
func WithSchema(dsn, schema string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

// Open opens a store on dsn as node (postgres.Options.Node; "" for the
// default) and closes it when the test ends.
func Open(t testing.TB, dsn, node string) *postgres.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, dsn, postgres.Options{Node: node})
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
