//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteKeepsTheOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only a privileged process can give a file to another user")
	}
	path := filepath.Join(t.TempDir(), "book.md")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), Options{Backup: true}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".bak"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != 65534 || st.Gid != 65534 || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: owner %d:%d mode %v, want 65534:65534 -rw-r-----", p, st.Uid, st.Gid, fi.Mode().Perm())
		}
	}
}
