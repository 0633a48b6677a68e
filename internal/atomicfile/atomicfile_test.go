package atomicfile

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	oldData = []byte("# Old book\n\nprevious version\n")
	newData = []byte("# New book\n\nfresh content, longer than before\n")
)

// tempsIn lists leftover temp files in dir.
func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var temps []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			temps = append(temps, e.Name())
		}
	}
	return temps
}

// readOpt returns the content of path and whether it exists.
func readOpt(t *testing.T, path string) ([]byte, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, false
	}
	require.NoError(t, err)
	return b, true
}

func requireMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, want, fi.Mode().Perm())
}

func writeFile(t *testing.T, path string, data []byte, perm fs.FileMode) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, data, perm))
	require.NoError(t, os.Chmod(path, perm)) // defeat the umask
}

func symlinkOrSkip(t *testing.T, oldname, newname string) {
	t.Helper()
	if err := os.Symlink(oldname, newname); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestWriteHappyPaths(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), (5*chunkSize/2)/16)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path to write
		data  []byte
		opt   Options
		check func(t *testing.T, dir, path string)
	}{
		{"new file gets Perm", nil, newData, Options{Backup: true, Perm: 0o640},
			func(t *testing.T, dir, path string) {
				requireMode(t, path, 0o640)
				_, ok := readOpt(t, path+".bak")
				require.False(t, ok, "no backup for a new file")
			}},
		{"zero Perm means 0644", nil, newData, Options{}, func(t *testing.T, dir, path string) {
			requireMode(t, path, 0o644)
		}},
		{"overwrite keeps mode", existing(0o600), newData, Options{Backup: true, Perm: 0o644},
			func(t *testing.T, dir, path string) {
				requireMode(t, path, 0o600)
				requireMode(t, path+".bak", 0o600)
			}},
		{"backup holds old bytes", existing(0o644), newData, Options{Backup: true},
			func(t *testing.T, dir, path string) {
				bak, _ := readOpt(t, path+".bak")
				require.Equal(t, oldData, bak)
			}},
		{"backup replaces older backup", func(t *testing.T, dir string) string {
			path := existing(0o644)(t, dir)
			writeFile(t, path+".bak", []byte("ancient"), 0o644)
			return path
		}, newData, Options{Backup: true}, func(t *testing.T, dir, path string) {
			bak, _ := readOpt(t, path+".bak")
			require.Equal(t, oldData, bak)
		}},
		{"Backup=false leaves no .bak", existing(0o644), newData, Options{},
			func(t *testing.T, dir, path string) {
				_, ok := readOpt(t, path+".bak")
				require.False(t, ok)
			}},
		{"symlink target written, link kept", func(t *testing.T, dir string) string {
			require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
			writeFile(t, filepath.Join(dir, "real", "book.md"), oldData, 0o644)
			link := filepath.Join(dir, "link.md")
			symlinkOrSkip(t, filepath.Join("real", "book.md"), link)
			return link
		}, newData, Options{Backup: true}, func(t *testing.T, dir, path string) {
			fi, err := os.Lstat(path)
			require.NoError(t, err)
			require.NotZero(t, fi.Mode()&fs.ModeSymlink, "link must stay a symlink")
			real := filepath.Join(dir, "real", "book.md")
			got, _ := readOpt(t, real)
			require.Equal(t, newData, got)
			bak, _ := readOpt(t, real+".bak")
			require.Equal(t, oldData, bak)
			require.Empty(t, tempsIn(t, filepath.Join(dir, "real")))
		}},
		{"dangling symlink creates target", func(t *testing.T, dir string) string {
			link := filepath.Join(dir, "link.md")
			symlinkOrSkip(t, "target.md", link)
			return link
		}, newData, Options{Backup: true, Perm: 0o600}, func(t *testing.T, dir, path string) {
			got, _ := readOpt(t, filepath.Join(dir, "target.md"))
			require.Equal(t, newData, got)
			fi, err := os.Lstat(path)
			require.NoError(t, err)
			require.NotZero(t, fi.Mode()&fs.ModeSymlink)
		}},
		{"empty data", existing(0o644), []byte{}, Options{Backup: true}, nil},
		{"multi-chunk data", existing(0o644), big, Options{Backup: true}, nil},
		{"relative path", func(t *testing.T, dir string) string {
			t.Chdir(dir)
			writeFile(t, "book.md", oldData, 0o644)
			return "book.md"
		}, newData, Options{Backup: true}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "book.md")
			if tc.setup != nil {
				path = tc.setup(t, dir)
			}
			require.NoError(t, Write(path, tc.data, tc.opt))
			got, ok := readOpt(t, path)
			require.True(t, ok)
			require.True(t, bytes.Equal(tc.data, got), "content mismatch")
			require.Empty(t, tempsIn(t, dir))
			if tc.check != nil {
				tc.check(t, dir, path)
			}
		})
	}
}

// existing returns a setup that creates book.md with oldData and mode perm.
func existing(perm fs.FileMode) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		path := filepath.Join(dir, "book.md")
		writeFile(t, path, oldData, perm)
		return path
	}
}

func TestWriteRefusals(t *testing.T) {
	tests := []struct {
		name    string
		path    func(t *testing.T, dir string) string
		wantErr string
	}{
		{"empty path", func(*testing.T, string) string { return "" }, "atomicfile: write: empty path"},
		{"directory", func(t *testing.T, dir string) string {
			sub := filepath.Join(dir, "chapters")
			require.NoError(t, os.Mkdir(sub, 0o755))
			return sub
		}, "is a directory"},
		{"trailing separator", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "new") + string(filepath.Separator)
		}, "path names a directory"},
		{"missing parent", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "nope", "book.md")
		}, "parent directory " + filepath.Join("DIR", "nope") + " does not exist"},
		{"parent is a file", func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "file"), oldData, 0o644)
			return filepath.Join(dir, "file", "book.md")
		}, "atomicfile: write "},
		{"symlink to directory", func(t *testing.T, dir string) string {
			require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
			symlinkOrSkip(t, "d", filepath.Join(dir, "link"))
			return filepath.Join(dir, "link")
		}, "is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.path(t, dir)
			before, err := os.ReadDir(dir)
			require.NoError(t, err)
			err = Write(path, newData, Options{Backup: true, Perm: 0o644})
			require.Error(t, err)
			want := strings.ReplaceAll(tc.wantErr, "DIR", dir)
			require.Contains(t, err.Error(), want)
			after, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Equal(t, names(before), names(after), "nothing may be created")
		})
	}
}

func names(entries []os.DirEntry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// NoSync writes the same file, without the fsyncs.
func TestWriteNoSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.bin")
	if err := Write(path, []byte("old"), Options{}); err != nil {
		t.Fatal(err)
	}
	var synced []string
	fsys := osFS()
	fsys.syncDir = func(dir string) error { synced = append(synced, dir); return nil }
	if err := (writer{fs: fsys}).write(path, [][]byte{[]byte("ne"), []byte("w")}, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "new" {
		t.Fatalf("got %q, %v", b, err)
	}
	if len(synced) != 0 {
		t.Fatalf("the directory was synced: %v", synced)
	}
}
