package atomicfile

import (
	"io"
	"io/fs"
	"os"
)

// tempFile is the part of *os.File that Write uses on temp files.
type tempFile interface {
	io.Writer
	Name() string
	Chmod(mode fs.FileMode) error
	Chown(uid, gid int) error
	Sync() error
	Close() error
}

// fileSystem holds every filesystem step Write performs after inspecting the
// target, so tests can fail any of them.
type fileSystem struct {
	createTemp func(dir, pattern string) (tempFile, error)
	open       func(name string) (io.ReadCloser, error)
	rename     func(oldpath, newpath string) error
	remove     func(name string) error
	syncDir    func(dir string) error
}

// osFS is the real filesystem.
func osFS() fileSystem {
	return fileSystem{
		createTemp: func(dir, pattern string) (tempFile, error) {
			f, err := os.CreateTemp(dir, pattern)
			if err != nil {
				return nil, err // avoid a typed-nil interface
			}
			return f, nil
		},
		open: func(name string) (io.ReadCloser, error) {
			f, err := os.Open(name)
			if err != nil {
				return nil, err
			}
			return f, nil
		},
		rename:  os.Rename,
		remove:  os.Remove,
		syncDir: syncDir,
	}
}
