package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var errInjected = errors.New("injected fault")

// faults wraps the real filesystem, records every step as "label#n" and
// fails the step named failAt (once). failRemove makes every remove fail.
type faults struct {
	failAt     string
	failRemove bool

	mu     sync.Mutex
	fired  bool
	counts map[string]int
	trace  []string
}

func (f *faults) hit(label string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.counts == nil {
		f.counts = map[string]int{}
	}
	f.counts[label]++
	key := fmt.Sprintf("%s#%d", label, f.counts[label])
	f.trace = append(f.trace, key)
	if !f.fired && key == f.failAt {
		f.fired = true
		return errInjected
	}
	return nil
}

func (f *faults) fs() fileSystem {
	base := osFS()
	return fileSystem{
		createTemp: func(dir, pattern string) (tempFile, error) {
			role := "temp"
			if strings.Contains(pattern, ".bak.") {
				role = "backup temp"
			}
			if err := f.hit("create " + role); err != nil {
				return nil, err
			}
			tf, err := base.createTemp(dir, pattern)
			if err != nil {
				return nil, err
			}
			return &faultFile{tempFile: tf, f: f, role: role}, nil
		},
		open: func(name string) (io.ReadCloser, error) {
			if err := f.hit("open original"); err != nil {
				return nil, err
			}
			rc, err := base.open(name)
			if err != nil {
				return nil, err
			}
			return faultReader{ReadCloser: rc, f: f}, nil
		},
		rename: func(oldpath, newpath string) error {
			label := "rename"
			if strings.HasSuffix(newpath, ".bak") {
				label = "rename backup"
			}
			if err := f.hit(label); err != nil {
				return err
			}
			return base.rename(oldpath, newpath)
		},
		remove: func(name string) error {
			if f.failRemove {
				return errInjected
			}
			return base.remove(name)
		},
		syncDir: func(dir string) error {
			if err := f.hit("fsync dir"); err != nil {
				return err
			}
			return base.syncDir(dir)
		},
	}
}

type faultFile struct {
	tempFile
	f    *faults
	role string
}

// Write fails after writing half of p, leaving a torn temp file behind.
func (ff *faultFile) Write(p []byte) (int, error) {
	if err := ff.f.hit("write " + ff.role); err != nil {
		n, _ := ff.tempFile.Write(p[:len(p)/2])
		return n, err
	}
	return ff.tempFile.Write(p)
}

func (ff *faultFile) Chmod(m fs.FileMode) error {
	if err := ff.f.hit("chmod " + ff.role); err != nil {
		return err
	}
	return ff.tempFile.Chmod(m)
}

func (ff *faultFile) Sync() error {
	if err := ff.f.hit("fsync " + ff.role); err != nil {
		return err
	}
	return ff.tempFile.Sync()
}

// Close releases the descriptor even when failing, like *os.File.
func (ff *faultFile) Close() error {
	err := ff.tempFile.Close()
	if ferr := ff.f.hit("close " + ff.role); ferr != nil {
		return ferr
	}
	return err
}

type faultReader struct {
	io.ReadCloser
	f *faults
}

func (fr faultReader) Read(p []byte) (int, error) {
	if err := fr.f.hit("read original"); err != nil {
		return 0, err
	}
	return fr.ReadCloser.Read(p)
}

// faultScenario is the state of the directory before a Write.
type faultScenario struct {
	name     string
	original []byte // nil: target absent
	prevBak  []byte // nil: no .bak yet
	backup   bool
}

var (
	faultOld = bytes.Repeat([]byte("old-"), 5*chunkSize/8) // 2.5 chunks
	faultNew = bytes.Repeat([]byte("NEW!"), 3*chunkSize/8) // 1.5 chunks
	faultBak = []byte("previous backup")
)

var faultScenarios = []faultScenario{
	{"existing with previous bak", faultOld, faultBak, true},
	{"existing without bak", faultOld, nil, true},
	{"existing backup off", faultOld, faultBak, false},
	{"new file", nil, nil, true},
}

func (sc faultScenario) prepare(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "book.md")
	if sc.original != nil {
		writeFile(t, path, sc.original, 0o644)
	}
	if sc.prevBak != nil {
		writeFile(t, path+".bak", sc.prevBak, 0o644)
	}
	return dir, path
}

func (sc faultScenario) run(t *testing.T, f *faults) (path string, err error) {
	t.Helper()
	_, path = sc.prepare(t)
	w := writer{fs: f.fs()}
	return path, w.write(path, [][]byte{faultNew}, Options{Backup: sc.backup, Perm: 0o644})
}

// allSteps is every step label a Write with backup of an existing file takes.
var allSteps = []string{
	"create temp", "chmod temp", "write temp", "fsync temp", "close temp",
	"open original", "create backup temp", "chmod backup temp", "read original",
	"write backup temp", "fsync backup temp", "close backup temp", "rename backup",
	"rename", "fsync dir",
}

func label(key string) string { return key[:strings.IndexByte(key, '#')] }

func TestFaultInjectionEveryStep(t *testing.T) {
	for _, sc := range faultScenarios {
		t.Run(sc.name, func(t *testing.T) {
			dry := &faults{}
			_, err := sc.run(t, dry)
			require.NoError(t, err)
			if sc.original != nil && sc.backup {
				var seen []string
				for _, k := range dry.trace {
					if !slices.Contains(seen, label(k)) {
						seen = append(seen, label(k))
					}
				}
				require.ElementsMatch(t, allSteps, seen, "trace must cover every step")
			}
			for _, key := range dry.trace {
				t.Run(key, func(t *testing.T) {
					t.Parallel()
					sc.checkFault(t, key)
				})
			}
		})
	}
}

// checkFault fails step key and asserts nothing was lost or torn.
func (sc faultScenario) checkFault(t *testing.T, key string) {
	f := &faults{failAt: key}
	path, err := sc.run(t, f)
	require.True(t, f.fired, "fault %s was not reached", key)
	require.ErrorIs(t, err, errInjected)
	step := label(key)
	require.True(t, strings.HasPrefix(err.Error(), "atomicfile: write "+path+": "+step+": "),
		"error %q does not name step %q", err, step)

	got, ok := readOpt(t, path)
	switch {
	case step == "fsync dir": // the rename already happened
		require.True(t, bytes.Equal(faultNew, got), "new content must be complete")
	case sc.original == nil:
		require.False(t, ok, "target must stay absent")
	default:
		require.True(t, bytes.Equal(sc.original, got), "original must be byte-identical")
	}
	require.Empty(t, tempsIn(t, filepath.Dir(path)))
	sc.checkBak(t, path)
}

// checkBak asserts .bak is the previous backup or the complete old content.
func (sc faultScenario) checkBak(t *testing.T, path string) {
	t.Helper()
	bak, ok := readOpt(t, path+".bak")
	if !ok {
		require.Nil(t, sc.prevBak, "previous backup lost")
		return
	}
	isPrev := sc.prevBak != nil && bytes.Equal(bak, sc.prevBak)
	isOld := sc.original != nil && sc.backup && bytes.Equal(bak, sc.original)
	require.True(t, isPrev || isOld, "partial or foreign .bak (%d bytes)", len(bak))
}

func TestFaultRemoveAlsoFails(t *testing.T) {
	sc := faultScenarios[0]
	for _, key := range []string{"fsync temp#1", "write backup temp#2", "rename backup#1", "rename#1"} {
		t.Run(key, func(t *testing.T) {
			f := &faults{failAt: key, failRemove: true}
			path, err := sc.run(t, f)
			require.ErrorIs(t, err, errInjected)
			require.Contains(t, err.Error(), ": "+label(key)+": ")
			require.Contains(t, err.Error(), "remove temp ")
			got, _ := readOpt(t, path)
			require.True(t, bytes.Equal(sc.original, got), "original must be byte-identical")
			sc.checkBak(t, path)
		})
	}
}
