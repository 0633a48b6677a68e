//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// syncDir fsyncs a directory so renames inside it are durable. Filesystems
// that cannot fsync directories (EINVAL, ENOTSUP) are tolerated.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	closeErr := d.Close()
	if err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return closeErr
}
