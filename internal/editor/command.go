package editor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aitexteditor/aite/internal/atomicfile"
	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/textdiff"
)

// ErrNoCommand is returned when there is no recorded command to undo.
var ErrNoCommand = errors.New("no recorded command to undo")

// ErrChanged is returned when a book changed since the command to undo was
// written, so undoing it could lose work.
var ErrChanged = errors.New("the book changed since")

// JournalDepth is how many written commands the journal keeps (how far
// `UndoCommand` can go back).
const JournalDepth = 20

// CommandRecord is one command whose edits were written to a book file:
// the byte change from the version before to the version after, so it can
// be undone exactly across runs, and the item IDs of the version before, so
// the undone version gets its IDs back.
type CommandRecord struct {
	Label  string    `json:"label"`
	Time   time.Time `json:"time"`
	Before string    `json:"beforeSha256"`
	After  string    `json:"afterSha256"`
	Change Change    `json:"change"`
	Edits  int       `json:"edits"`
	// IDs (runs, document.FormatIDRuns) and NextID of the version before;
	// empty when unknown (a journal written by an older aite).
	IDs    string `json:"ids,omitempty"`
	NextID int    `json:"nextId,omitempty"`
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

// JournalPath is where the command journal of a book file lives: in its
// state directory.
func JournalPath(book string) string {
	return filepath.Join(StateDir(book), "journal.json")
}

// legacyJournalPath is where aite kept the journal before the state
// directory: a hidden file beside the book. It is read when the journal is
// missing and removed once the journal is written.
func legacyJournalPath(book string) string {
	return filepath.Join(filepath.Dir(book), "."+filepath.Base(book)+".aite-journal.json")
}

// change is the single splice that turns before into after: the common
// prefix and suffix are left out.
func change(before, after []byte) Change {
	p := textdiff.CommonPrefix(before, after)
	s := textdiff.CommonSuffix(before[p:], after[p:])
	return Change{Start: p, Old: bytes.Clone(before[p : len(before)-s]), New: bytes.Clone(after[p : len(after)-s])}
}

func readLog(book string) (commandLog, error) {
	var l commandLog
	path := JournalPath(book)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		path = legacyJournalPath(book)
		b, err = os.ReadFile(path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return commandLog{Book: filepath.Base(book)}, nil
	}
	if err != nil {
		return l, fmt.Errorf("%w: %w", ErrIO, err)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("%w: the journal %s is damaged: %w", ErrIO, path, err)
	}
	return l, nil
}

func writeLog(book string, l commandLog) error {
	if len(l.Commands) > JournalDepth {
		l.Commands = l.Commands[len(l.Commands)-JournalDepth:]
	}
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		return err
	}
	if err := bookcache.WriteFile(JournalPath(book), b); err != nil {
		return fmt.Errorf("%w: %w", ErrIO, err)
	}
	_ = os.Remove(legacyJournalPath(book)) // migrated; absent is fine
	return nil
}

// record appends a command to the book file's journal; ids is the record
// of the version before (nil when unknown).
func record(book string, c CommandRecord, ids *idRecord) error {
	l, err := readLog(book)
	if err != nil {
		return err
	}
	if ids != nil && ids.sha == c.Before {
		c.IDs, c.NextID = document.FormatIDRuns(ids.ids), ids.next
	}
	l.Commands = append(l.Commands, c)
	return writeLog(book, l)
}

// UndoCommand restores a book file to the version before its last recorded
// command, byte for byte, provided the file is still exactly the version
// that command wrote. The items get back the IDs they had before the
// command (items the command added are gone; their IDs are not handed out
// again), and the state file is updated. The previous version is kept as a
// backup when asked. A read-only book is refused (ErrReadOnly) unless
// force.
func UndoCommand(book string, backup, force bool) (CommandRecord, error) {
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
	if err := checkWritable(book, force); err != nil {
		return CommandRecord{}, err
	}
	if err := atomicfile.Write(book, restored, atomicfile.Options{Backup: backup}); err != nil {
		return CommandRecord{}, fmt.Errorf("%w: %w", ErrIO, err)
	}
	_ = writeRecord(book, undoneIDs(book, restored, c)) // best effort: a later open realigns
	l.Commands = l.Commands[:len(l.Commands)-1]
	return c, writeLog(book, l)
}

// undoneIDs is the record of a version restored by undo: the IDs the
// journal kept for it, with the next ID never going down; without them (or
// if they do not fit, or the next ID is beyond document.MaxNextID) the IDs
// are carried over from the current record.
func undoneIDs(book string, restored []byte, c CommandRecord) *idRecord {
	d := markdown.Parse(restored)
	cur, _ := readRecord(book)
	next := c.NextID
	if cur != nil {
		next = max(next, cur.next)
	}
	if ids, err := document.ParseIDRuns(c.IDs, d.Len()); err == nil && c.NextID > 0 && document.CheckNextID(next, d.Len()) == nil &&
		d.RestoreIDs(ids, next) == nil {
		return recordOf(d, c.Before)
	}
	adopt(d, cur, c.Before)
	return recordOf(d, c.Before)
}
