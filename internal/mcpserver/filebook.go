package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/tool"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

// FileIO is how `aite mcp BOOK.md` opens its book file and writes it back:
// the one seam between the MCP server and the command line's book files.
// internal/cli passes the command line's own book opening and saving, so
// an edit made over MCP is written like every other command's edit.
type FileIO struct {
	// Open reads the book file at path into a new editor session and
	// returns the book's ID there.
	Open func(path string) (s *editor.Session, id string, err error)
	// Save writes the book back to its file after an applied edit (atomic,
	// with a backup and an undo-journal entry named label).
	Save func(s *editor.Session, id, label string) error
}

// ErrChangedOnDisk is reported (once) when the book file was changed by
// something other than this server: the file is read again.
var ErrChangedOnDisk = errors.New("the book file changed on disk")

// FileLibrary is the library of `aite mcp BOOK.md`: one book file, which is
// also its only Book. Every edit is written to the file at once through
// FileIO.Save. If the file is changed by anything else (an editor, `aite
// undo`), the next call reads it again and says so, instead of writing
// over the change.
type FileLibrary struct {
	path  string
	name  string
	io    FileIO
	agent *cursoragent.Agent // nil: no cursor agent

	mu    sync.Mutex
	s     *editor.Session
	id    string
	tools map[string]tool.Tool
	stamp fileStamp // the file as last read or written
}

// fileStamp is what tells a file changed without reading it.
type fileStamp struct {
	size int64
	mod  time.Time
}

// OpenFile opens the book file at path. agent, when not nil, runs the
// cursor agent tool (its session is set to the book's).
func OpenFile(path string, io FileIO, agent *cursoragent.Agent) (*FileLibrary, error) {
	l := &FileLibrary{path: path, name: filepath.Base(path), io: io, agent: agent}
	if err := l.load(); err != nil {
		return nil, err
	}
	return l, nil
}

// load reads the file into a new session and binds the tools to it.
func (l *FileLibrary) load() error {
	s, id, err := l.io.Open(l.path)
	if err != nil {
		return err
	}
	env := booktools.Env{Session: s, Book: id}
	if l.agent != nil {
		a := *l.agent
		a.Session = s
		env.Agent = &a
	}
	l.s, l.id, l.tools = s, id, map[string]tool.Tool{}
	for _, t := range booktools.Tools(env) {
		l.tools[t.Name()] = t
	}
	l.stamp, err = stampOf(l.path)
	return err
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, fmt.Errorf("%w: %w", editor.ErrIO, err)
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime()}, nil
}

// fresh makes sure the session holds what the file holds. If something
// else changed the file, it is read again and the error says so.
func (l *FileLibrary) fresh() error {
	st, err := stampOf(l.path)
	if err != nil || st == l.stamp {
		return err
	}
	disk, err := os.ReadFile(l.path)
	if err != nil {
		return fmt.Errorf("%w: %w", editor.ErrIO, err)
	}
	if mem, err := l.s.Source(l.id); err == nil && bytes.Equal(mem, disk) {
		l.stamp = st // touched, not changed
		return nil
	}
	if err := l.load(); err != nil {
		return err
	}
	return fmt.Errorf("%w since aite read it, so it was read again: unchanged items keep their pointers, while items that were rewritten or added have new IDs (an old pointer to them is refused). Look the items up again (search-find, editor-read) before editing", ErrChangedOnDisk)
}

// Documents lists the one book.
func (l *FileLibrary) Documents(context.Context) ([]Document, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	items := 0
	for _, b := range l.s.Books() {
		if b.ID == l.id {
			items = b.Items
		}
	}
	return []Document{{ID: l.name, Name: l.name, Items: items}}, nil
}

// Open returns the book for "" or its name.
func (l *FileLibrary) Open(_ context.Context, id string) (Book, error) {
	if id != "" && id != l.name {
		return nil, fmt.Errorf("%w: %s (this server has one book: %s)", ErrNotFound, id, l.name)
	}
	return l, nil
}

// Name is the file's base name.
func (l *FileLibrary) Name() string { return l.name }

// Read runs fn on the book under the lock.
func (l *FileLibrary) Read(_ context.Context, fn func(s *editor.Session, id string) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.fresh(); err != nil {
		return err
	}
	return fn(l.s, l.id)
}

// Call runs a book tool under the lock and writes the book after an edit.
func (l *FileLibrary) Call(ctx context.Context, name string, args json.RawMessage, check Check) (tool.Result, error) {
	if booktools.Unlocked(name) && check == nil {
		l.mu.Lock()
		t, err := l.tools[name], l.fresh()
		l.mu.Unlock()
		if err != nil {
			return failed(err)
		}
		return callOrUnknown(ctx, t, name, args)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.fresh(); err != nil {
		return failed(err)
	}
	if check != nil {
		if r := check(l.s, l.id); r != nil {
			return *r, nil
		}
	}
	res, err := callOrUnknown(ctx, l.tools[name], name, args)
	if err != nil || len(res.Edits) == 0 {
		return res, err
	}
	return l.commit(res), nil
}

// commit writes the book after the edits of res; if that fails the edits
// are undone in the session, so the book stays as the file has it.
func (l *FileLibrary) commit(res tool.Result) tool.Result {
	e := res.Edits[0]
	err := l.io.Save(l.s, l.id, fmt.Sprintf("mcp %s %s", e.Op, e.Pointer))
	if err == nil {
		if l.stamp, err = stampOf(l.path); err == nil {
			return res
		}
	}
	if _, uerr := l.s.Undo(l.id, len(res.Edits)); uerr != nil {
		_ = l.load() // the session is unsure: start again from the file
	}
	return tool.Errorf("tool_failed", "The edit could not be written to %s (%v), so it was not applied; the book is unchanged.", l.path, err)
}

// failed reports a file that changed on disk as a result the model reads;
// other failures stay errors.
func failed(err error) (tool.Result, error) {
	if errors.Is(err, ErrChangedOnDisk) {
		return tool.Errorf("changed", "Not done: %v.", err), nil
	}
	return tool.Result{}, err
}

func callOrUnknown(ctx context.Context, t tool.Tool, name string, args json.RawMessage) (tool.Result, error) {
	if t == nil {
		return tool.Errorf("tool_not_enabled", "No book tool is named %s.", name), nil
	}
	return t.Call(ctx, args)
}
