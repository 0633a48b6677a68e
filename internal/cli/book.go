package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/aitexteditor/aite/internal/atomicfile"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

// LoadBook reads and parses the book at path. Failures are IOErrors that
// name the path.
func LoadBook(path string) (*document.Document, error) {
	src, err := readFile("book", path)
	if err != nil {
		return nil, err
	}
	return markdown.Parse(src), nil
}

// ReadText reads edit text from a file, or from stdin when path is "-".
func ReadText(path string, stdin io.Reader) (string, error) {
	if path == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", ioErrorf("read text from standard input: %w", err)
		}
		return string(b), nil
	}
	b, err := readFile("text file", path)
	return string(b), err
}

func readFile(what, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ioErrorf("%s %s does not exist", what, path)
	case err != nil:
		return nil, ioErrorf("cannot read %s %s: %w", what, path, err)
	}
	return b, nil
}

// SaveBook writes data to path atomically, keeping the previous version as
// path+".bak" when backup is set. It returns the backup path, or "" when no
// backup was made (none asked for, or path did not exist).
func SaveBook(path string, data []byte, backup bool) (string, error) {
	bak := ""
	if backup {
		bak = backupPath(path)
	}
	if err := atomicfile.Write(path, data, atomicfile.Options{Backup: backup}); err != nil {
		return "", &IOError{Err: fmt.Errorf("cannot write %s: %w", path, err)}
	}
	return bak, nil
}

// backupPath returns where atomicfile puts the backup of path (next to the
// symlink target), or "" when path does not exist yet.
func backupPath(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		p, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "" // a dangling link: atomicfile creates its target
		}
		return p + ".bak"
	}
	return path + ".bak"
}
