package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/reading"
	"github.com/aitexteditor/aite/internal/search"
)

// Book is a book file opened in an editor session for one command. Every
// read, edit, search, cursor, diff and save goes through the session; the
// reading commands (find, read, items, outline, cursor) are those of
// internal/reading over the session.
type Book struct {
	*reading.Book
	s    *editor.Session
	id   string // the session's book ID: the path as given
	info editor.BookInfo
}

// OpenBook opens the book at path in a new editor session, with the item
// IDs recorded beside it (see editor.Session.Open). Failures are IOErrors
// that name the path. Close the book when the command is done.
func OpenBook(path string) (*Book, error) { return openBook(path, nil) }

// openBook is OpenBook with the session set up by prepare (if not nil)
// before the book is opened.
func openBook(path string, prepare func(*editor.Session)) (*Book, error) {
	s := editor.New()
	if prepare != nil {
		prepare(s)
	}
	restore := reading.LimitMemory(path)
	info, err := s.Open(path)
	restore()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ioErrorf("book %s does not exist", path)
	case errors.Is(err, editor.ErrEncoding):
		return nil, &reading.IOError{Err: err}
	case err != nil:
		return nil, ioErrorf("cannot read book %s: %w", path, ioCause(err))
	}
	r := sessionReader{s: s, id: info.ID}
	return &Book{Book: reading.NewBook(r, info.IDs == editor.IDsNew), s: s, id: info.ID, info: info}, nil
}

// Open is OpenBook that writes the notes about the book's item IDs to log
// (see WriteNotes).
func Open(path string, log io.Writer) (*Book, error) { return OpenWith(path, log, nil) }

// OpenWith is Open with the editor session set up by prepare before the
// book is opened (as for one reading command: editor.Session.ForOneCommand,
// CacheMeanwhile).
func OpenWith(path string, log io.Writer, prepare func(*editor.Session)) (*Book, error) {
	b, err := openBook(path, prepare)
	if err == nil {
		b.WriteNotes(log)
	}
	return b, err
}

// WriteNotes tells on w when the book changed since aite last recorded its
// item IDs (another program edited it) and when the IDs cannot be recorded.
func (b *Book) WriteNotes(w io.Writer) {
	if b.info.IDs == editor.IDsCarried {
		fmt.Fprintf(w, "aite: note: %s changed since aite last read it; %s new or rewritten and got new IDs, every other pointer still names its item\n",
			b.id, countOf(b.info.NewIDs, "item is", "items are"))
	}
	if b.info.Warning != "" {
		fmt.Fprintf(w, "aite: warning: %s\n", b.info.Warning)
	}
}

// countOf is "1 item is" or "3 items are".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Close ends the book's session: IDs handed out to edits that were not
// written stay unused (editor.Session.Close).
func (b *Book) Close() error { return b.s.Close(b.id) }

// Session returns the editor session holding the book.
func (b *Book) Session() *editor.Session { return b.s }

// ID returns the book's ID in its session.
func (b *Book) ID() string { return b.id }

// sessionReader is the book ID in an editor session as a reading.Reader.
type sessionReader struct {
	s  *editor.Session
	id string
}

func (r sessionReader) Resolve(ptr string) (editor.ItemView, error) { return r.s.Resolve(r.id, ptr) }
func (r sessionReader) ItemText(id int) (editor.ItemView, bool)     { return r.s.ItemText(r.id, id) }
func (r sessionReader) Outline() (editor.OutlineView, error)        { return r.s.Outline(r.id) }
func (r sessionReader) Next(name string) (cursor.Portion, error)    { return r.s.Next(r.id, name) }

func (r sessionReader) Read(ptr string, before, after int) (editor.ReadView, error) {
	return r.s.Read(r.id, ptr, before, after)
}

func (r sessionReader) Items(from string, limit int, kinds []document.Kind) (editor.ItemsView, error) {
	return r.s.Items(r.id, from, limit, kinds)
}

func (r sessionReader) CreateCursor(spec cursor.Spec) (cursor.Info, error) {
	return r.s.CreateCursor(r.id, spec)
}

func (r sessionReader) Search(query string, mode editor.SearchMode, opt search.Options) ([]search.Result, error) {
	return r.s.Search(r.id, query, mode, opt)
}

// ioCause strips the editor.ErrIO marker from a session I/O error, leaving
// the underlying cause.
func ioCause(err error) error {
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range u.Unwrap() {
			if e != editor.ErrIO {
				return e
			}
		}
	}
	return err
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
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", ioErrorf("text file %s does not exist", path)
	case err != nil:
		return "", ioErrorf("cannot read text file %s: %w", path, err)
	}
	return string(b), nil
}

// backupPath returns where a save puts the backup of path (next to the
// symlink target), or "" when path does not exist yet.
func backupPath(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		p, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "" // a dangling link: the save creates its target
		}
		return p + ".bak"
	}
	return path + ".bak"
}

func (r sessionReader) FindEntry(entry string, opt search.Options) (reading.FoundEntry, []search.Result, bool, error) {
	hits, err := r.s.FindEntry(r.id, entry, opt)
	if err != nil {
		return reading.FoundEntry{}, nil, false, codexError(err)
	}
	e := reading.FoundEntry{ID: hits.Entry.ID, Name: hits.Entry.Name, Aliases: hits.Entry.Aliases}
	return e, hits.Results, hits.More, nil
}

func (r sessionReader) EntryCursor(entry string, spec cursor.Spec) (cursor.Info, error) {
	info, err := r.s.EntryCursor(r.id, entry, spec)
	return info, codexError(err)
}

// TargetsCursor creates a cursor over the live items of a saved target
// set (reading.TargetsReader).
func (r sessionReader) TargetsCursor(name string, spec cursor.Spec) (cursor.Info, int, error) {
	ids, gone, err := r.savedSet(name)
	if err != nil {
		return cursor.Info{}, 0, err
	}
	spec.Type, spec.Keywords, spec.IDs = cursor.Search, nil, ids
	if spec.Description == "" {
		spec.Description = "the saved target set " + name
	}
	info, err := r.s.CreateCursor(r.id, spec)
	return info, gone, err
}

// savedSet returns the IDs of a saved target set of the book that still
// name items, in document order, and how many of its items no longer
// exist (deleted, or rewritten by another program).
func (r sessionReader) savedSet(name string) ([]int, int, error) {
	sets, err := editor.SavedTargetSets(r.id)
	if err != nil {
		return nil, 0, &reading.IOError{Err: err}
	}
	s, ok := sets[name]
	switch {
	case !ok && len(sets) == 0:
		return nil, 0, reading.Usagef("no saved target set %q for %s: none is saved ('aite navigate %s TASK --mode collect --save NAME' saves one)", name, r.id, r.id)
	case !ok:
		return nil, 0, reading.Usagef("no saved target set %q for %s (saved: %s)", name, r.id, strings.Join(editor.SavedSetNames(sets), ", "))
	}
	var live []editor.ItemView
	for _, id := range s.IDs {
		if it, ok := r.ItemText(id); ok {
			live = append(live, it)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].Index < live[j].Index })
	ids := make([]int, len(live))
	for i, it := range live {
		ids[i] = it.ID
	}
	return ids, len(s.IDs) - len(ids), nil
}
