package editor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aitexteditor/aite/internal/atomicfile"
)

// ErrNoCommand is returned when there is no recorded command to undo.
var ErrNoCommand = errors.New("no recorded command to undo")

// ErrChanged is returned when a book changed since the command to undo was
// written, so undoing it could lose work.
var ErrChanged = errors.New("the book changed since")

// CommandRecord is one command whose edits were written to a book file:
// the byte change from the version before to the version after, so it can
// be undone exactly across runs.
type CommandRecord struct {
	Label  string    `json:"label"`
	Time   time.Time `json:"time"`
	Before string    `json:"beforeSha256"`
	After  string    `json:"afterSha256"`
	Change Change    `json:"change"`
	Edits  int       `json:"edits"`
}

// Change is a byte splice: Old at Start became New. Bytes, not strings, so
// any content (invalid UTF-8 included) survives the JSON journal.
type Change struct {
	Start int    `json:"start"`
	Old   []byte `json:"old"`
	New   []byte `json:"new"`
}

type commandLog struct {
	Book     string          `json:"book"`
	Commands []CommandRecord `json:"commands"`
}

// JournalPath is where the command journal of a book file lives: a hidden
// file beside it.
func JournalPath(book string) string {
	return filepath.Join(filepath.Dir(book), "."+filepath.Base(book)+".aite-journal.json")
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// change is the single splice that turns before into after: the common
// prefix and suffix are left out.
func change(before, after []byte) Change {
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	s := 0
	for s < len(before)-p && s < len(after)-p && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	return Change{Start: p, Old: bytes.Clone(before[p : len(before)-s]), New: bytes.Clone(after[p : len(after)-s])}
}

func readLog(book string) (commandLog, error) {
	var l commandLog
	b, err := os.ReadFile(JournalPath(book))
	if errors.Is(err, os.ErrNotExist) {
		return commandLog{Book: filepath.Base(book)}, nil
	}
	if err != nil {
		return l, fmt.Errorf("%w: %w", ErrIO, err)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("%w: the journal %s is damaged: %w", ErrIO, JournalPath(book), err)
	}
	return l, nil
}

func writeLog(book string, l commandLog) error {
	const keep = 20
	if len(l.Commands) > keep {
		l.Commands = l.Commands[len(l.Commands)-keep:]
	}
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(JournalPath(book), b, atomicfile.Options{Perm: 0o644}); err != nil {
		return fmt.Errorf("%w: %w", ErrIO, err)
	}
	return nil
}

// record appends a command to the book file's journal.
func record(book, label string, before, after []byte, edits int, now time.Time) error {
	l, err := readLog(book)
	if err != nil {
		return err
	}
	l.Commands = append(l.Commands, CommandRecord{Label: label, Time: now, Before: digest(before), After: digest(after),
		Change: change(before, after), Edits: edits})
	return writeLog(book, l)
}

// UndoCommand restores a book file to the version before its last recorded
// command, byte for byte, provided the file is still exactly the version
// that command wrote. The previous version is kept as a backup when asked.
func UndoCommand(book string, backup bool) (CommandRecord, error) {
	l, err := readLog(book)
	if err != nil {
		return CommandRecord{}, err
	}
	if len(l.Commands) == 0 {
		return CommandRecord{}, fmt.Errorf("%w for %s", ErrNoCommand, book)
	}
	c := l.Commands[len(l.Commands)-1]
	cur, err := os.ReadFile(book)
	if err != nil {
		return CommandRecord{}, fmt.Errorf("%w: %w", ErrIO, err)
	}
	if digest(cur) != c.After {
		return CommandRecord{}, fmt.Errorf("%w %q was written at %s; restore %s.bak by hand if you want the old version",
			ErrChanged, c.Label, c.Time.Format(time.RFC3339), book)
	}
	end := c.Change.Start + len(c.Change.New)
	restored := append(append(append([]byte{}, cur[:c.Change.Start]...), c.Change.Old...), cur[end:]...)
	if digest(restored) != c.Before {
		return CommandRecord{}, fmt.Errorf("%w: the journal of %s does not match the file", ErrIO, book)
	}
	if err := atomicfile.Write(book, restored, atomicfile.Options{Backup: backup}); err != nil {
		return CommandRecord{}, fmt.Errorf("%w: %w", ErrIO, err)
	}
	l.Commands = l.Commands[:len(l.Commands)-1]
	return c, writeLog(book, l)
}
