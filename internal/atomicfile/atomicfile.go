// Package atomicfile saves files so that a crash at any moment leaves either
// the complete old content or the complete new content at the path, never a
// torn file.
//
// Write puts the new bytes into a temporary file in the same directory,
// fsyncs and closes it, optionally refreshes path+".bak" with the previous
// content (through its own fsynced temporary file), renames the temporary
// file over the target and finally fsyncs the directory. The original file
// stays in place until that last rename, so a failure at any earlier step
// leaves it untouched.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Options controls Write.
type Options struct {
	// Backup keeps the previous version of the file as path+".bak" (next to
	// the resolved target when path is a symlink). Callers default it to true.
	Backup bool
	// Perm is the permission of a file that does not exist yet; zero means
	// 0644. It is applied exactly (the umask is not consulted). Existing files
	// keep their mode.
	Perm os.FileMode
	// NoSync skips the fsyncs: the rename still replaces the file in one
	// step, but after a crash the file may be empty or torn. Only for a file
	// that can be rebuilt and whose reader checks it (a cache with
	// checksums).
	NoSync bool
}

const (
	chunkSize   = 1 << 20 // bytes per write call
	maxSymlinks = 40      // like the kernel's ELOOP limit
	defaultPerm = fs.FileMode(0o644)
	keepBits    = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
)

// Write atomically replaces the file at path with data. Symlinks are followed
// so the link itself is preserved. Errors name the path and the failing step,
// e.g. "atomicfile: write /x/book.md: fsync temp: ...", and wrap the cause.
// Only a failure of the final directory fsync happens after the new content
// is in place; every other failure leaves the original file byte-identical.
func Write(path string, data []byte, opt Options) error {
	return writer{fs: osFS()}.write(path, [][]byte{data}, opt)
}

// WriteParts is Write of the concatenation of parts, without joining them
// in memory first.
func WriteParts(path string, parts [][]byte, opt Options) error {
	return writer{fs: osFS()}.write(path, parts, opt)
}

// writer carries the filesystem used by Write so tests can inject faults.
type writer struct{ fs fileSystem }

// target describes the file that will be replaced.
type target struct {
	path   string      // symlink-free final component
	mode   fs.FileMode // mode to give the new file
	owner  owner       // owner to give the new file, when known
	exists bool
}

func (w writer) write(path string, data [][]byte, opt Options) error {
	if path == "" {
		return errors.New("atomicfile: write: empty path")
	}
	tg, err := inspect(path, opt.Perm)
	if err == nil {
		err = w.replace(tg, data, opt)
	}
	if err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	return nil
}

// inspect resolves symlinks and checks that the target can be written.
func inspect(path string, perm fs.FileMode) (target, error) {
	if os.IsPathSeparator(path[len(path)-1]) {
		return target{}, errors.New("path names a directory")
	}
	resolved, fi, err := resolveLinks(path)
	if err != nil {
		return target{}, err
	}
	if fi == nil {
		mode := perm & keepBits
		if mode == 0 {
			mode = defaultPerm
		}
		return target{path: resolved, mode: mode}, checkParent(filepath.Dir(resolved))
	}
	what := "path"
	if resolved != path {
		what = "symlink target " + resolved
	}
	if fi.IsDir() {
		return target{}, fmt.Errorf("%s is a directory", what)
	}
	if !fi.Mode().IsRegular() {
		return target{}, fmt.Errorf("%s is not a regular file", what)
	}
	return target{path: resolved, mode: fi.Mode() & keepBits, owner: ownerOf(fi), exists: true}, nil
}

// resolveLinks follows symlinks in the final path component. It returns the
// resolved path and its FileInfo, or a nil FileInfo when it does not exist
// (a dangling link then creates its target).
func resolveLinks(path string) (string, fs.FileInfo, error) {
	for range maxSymlinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil, nil
		}
		if err != nil {
			return "", nil, fmt.Errorf("stat: %w", err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, fi, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", nil, fmt.Errorf("resolve symlink: %w", err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", nil, errors.New("resolve symlink: too many levels of symbolic links")
}

// checkParent reports a missing or non-directory parent clearly.
func checkParent(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("parent directory %s does not exist: %w", dir, fs.ErrNotExist)
	case err != nil:
		return fmt.Errorf("stat parent directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("parent %s is not a directory", dir)
	}
	return nil
}

// replace runs the crash-safe sequence; the original is only touched by the
// final rename.
func (w writer) replace(tg target, data [][]byte, opt Options) error {
	dir, base := filepath.Split(tg.path)
	if dir == "" {
		dir = "."
	}
	tmp, err := w.writeTemp(dir, "."+base+".tmp-*", "temp", tg, writeData(data), !opt.NoSync)
	if err != nil {
		return err
	}
	if opt.Backup && tg.exists {
		if err := w.backup(tg, dir, base); err != nil {
			return w.discard(tmp, err)
		}
	}
	if err := w.fs.rename(tmp, tg.path); err != nil {
		return w.discard(tmp, fmt.Errorf("rename: %w", err))
	}
	if opt.NoSync {
		return nil
	}
	if err := w.fs.syncDir(dir); err != nil {
		return fmt.Errorf("fsync dir: %w", err)
	}
	return nil
}

// backup copies the current content into a fsynced temp file and renames it
// over path+".bak", leaving the original in place.
func (w writer) backup(tg target, dir, base string) error {
	src, err := w.fs.open(tg.path)
	if err != nil {
		return fmt.Errorf("open original: %w", err)
	}
	defer src.Close() // read-only: a close error cannot lose data
	tmp, err := w.writeTemp(dir, "."+base+".bak.tmp-*", "backup temp", tg, copyFrom(src), true)
	if err != nil {
		return err
	}
	if err := w.fs.rename(tmp, tg.path+".bak"); err != nil {
		return w.discard(tmp, fmt.Errorf("rename backup: %w", err))
	}
	return nil
}

// writeTemp creates a temp file with the target's owner (where allowed) and
// mode, fills it, fsyncs and closes it, and returns its name. On failure the
// temp file is removed.
func (w writer) writeTemp(dir, pattern, role string, tg target, fill func(io.Writer, string) error, sync bool) (string, error) {
	f, err := w.fs.createTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", role, err)
	}
	if tg.owner.known {
		// Only a privileged process may give a file away; otherwise the
		// new file belongs to the writer, as with any editor.
		_ = f.Chown(tg.owner.uid, tg.owner.gid)
	}
	if err := finishTemp(f, role, tg.mode, fill, sync); err != nil {
		return "", w.discard(f.Name(), err)
	}
	return f.Name(), nil
}

func finishTemp(f tempFile, role string, mode fs.FileMode, fill func(io.Writer, string) error, sync bool) error {
	err := f.Chmod(mode)
	if err != nil {
		err = fmt.Errorf("chmod %s: %w", role, err)
	} else if err = fill(f, role); err == nil && sync {
		if err = f.Sync(); err != nil {
			err = fmt.Errorf("fsync %s: %w", role, err)
		}
	}
	if err != nil {
		_ = f.Close() // already failing; the file is removed next
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", role, err)
	}
	return nil
}

// writeData returns a fill function writing the parts in chunkSize pieces.
func writeData(parts [][]byte) func(io.Writer, string) error {
	return func(dst io.Writer, role string) error {
		for _, data := range parts {
			for len(data) > 0 {
				n := min(len(data), chunkSize)
				if _, err := dst.Write(data[:n]); err != nil {
					return fmt.Errorf("write %s: %w", role, err)
				}
				data = data[n:]
			}
		}
		return nil
	}
}

// copyFrom returns a fill function copying src in chunkSize pieces.
func copyFrom(src io.Reader) func(io.Writer, string) error {
	return func(dst io.Writer, role string) error {
		buf := make([]byte, chunkSize)
		for {
			n, rerr := src.Read(buf)
			if n > 0 {
				if _, err := dst.Write(buf[:n]); err != nil {
					return fmt.Errorf("write %s: %w", role, err)
				}
			}
			if rerr == io.EOF {
				return nil
			}
			if rerr != nil {
				return fmt.Errorf("read original: %w", rerr)
			}
		}
	}
}

// discard removes a temp file after err; a failed removal is reported too.
func (w writer) discard(name string, err error) error {
	if rmErr := w.fs.remove(name); rmErr != nil {
		return errors.Join(err, fmt.Errorf("remove temp %s: %w", name, rmErr))
	}
	return err
}
