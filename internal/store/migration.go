package store

import (
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Migration is one numbered schema step of an SQL backend, read from a file
// NNNN_name.sql. Every SQL backend keeps its schema in such steps, applies
// the missing ones in order at open (each in its own transaction, recorded
// in its schema_migrations table) and refuses a database newer than its
// last step.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// LoadMigrations reads the *.sql files of dir in fsys (other files are
// ignored). Their names must start with a positive version number; the
// versions must run 1, 2, 3 … without gaps or repeats.
func LoadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var migs []Migration
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
		migs = append(migs, Migration{Version: v, Name: name, SQL: string(text)})
	}
	// fs.ReadDir sorts by name and the numbers are zero-padded, but check the sequence anyway.
	for i, m := range migs {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %04d_%s: expected version %d (versions must run 1, 2, 3 … without gaps)", m.Version, m.Name, i+1)
		}
	}
	return migs, nil
}
