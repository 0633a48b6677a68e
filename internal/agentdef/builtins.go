package agentdef

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteBuiltins writes the built-in definition files into the directories
// (§ 7.5): files holds agents/…, tools/…, skills/<id>/…, viewports/… and
// models/… (use fs.Sub for an embedded subtree). Each file replaces the
// file of the same name; every other file is kept. A file whose content is
// already the same is not rewritten (so a watcher sees no change), and
// files are replaced atomically (a temporary dot-file, then a rename), so
// a watcher never reads half a file. A top-level directory whose Dirs
// entry is empty is skipped. Errors are collected; the other files are
// still written.
func WriteBuiltins(dirs Dirs, files fs.FS) error {
	targets := map[string]string{"agents": dirs.Agents, "tools": dirs.Tools, "skills": dirs.Skills,
		"viewports": dirs.Viewports, "models": dirs.Models}
	var errs []error
	walkErr := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if d.IsDir() {
			return nil
		}
		top, rest, _ := strings.Cut(p, "/")
		dir, known := targets[top]
		switch {
		case !known || rest == "":
			errs = append(errs, fmt.Errorf("built-in %s: not under agents/, tools/, skills/, viewports/ or models/", p))
			return nil
		case dir == "":
			return nil
		}
		data, err := fs.ReadFile(files, p)
		if err == nil {
			err = writeIfChanged(filepath.Join(dir, filepath.FromSlash(rest)), data)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("built-in %s: %w", p, err))
		}
		return nil
	})
	return errors.Join(append(errs, walkErr)...)
}

// writeIfChanged replaces path with data atomically, unless it already
// holds data.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}
