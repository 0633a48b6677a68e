package sqlite

import (
	"path/filepath"
	"testing"
)

// TestWriterStatementsArePrepared: on a migrated database every statement
// of writerStatements is prepared at Open (one that is not would be parsed
// at every call, silently slower).
func TestWriterStatementsArePrepared(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "aite.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range writerStatements() {
		if s.ws[q] == nil {
			t.Errorf("not prepared: %q", q)
		}
	}
}
