// Package reading is the reading side of aite's command line: the
// commands find, read, items, outline and cursor — their flags, requests
// and checks, and the text and JSON they print — over a Reader (a book in
// an editor session, or a book read straight from its cache by
// internal/quick), plus the output helpers and the usage errors the other
// commands share. Nothing here parses Markdown, opens files or knows about
// models or servers, so a process that only reads a cached book does not
// pay for initialising them.
//
// Every output function writes to an io.Writer it is given; nothing here
// touches os.Stdout or os.Stderr.
package reading

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
)

// Exit codes of the aite command.
const (
	// ExitOK is success.
	ExitOK = 0
	// ExitUsage is a usage error or bad input: bad flags or arguments, a
	// pointer that names no item, an edit the document refused.
	ExitUsage = 1
	// ExitIO is an I/O error: the book (or a text file, or standard input)
	// is missing or unreadable, or the output cannot be written.
	ExitIO = 2
)

// ExitHelp documents the exit codes; commands append it to their help.
const ExitHelp = `Exit status:
  0  success
  1  usage error or bad input (bad flags or arguments, a pointer that names
     no item, an edit the document refused); nothing is written
  2  I/O error (the book or a text file is missing, unreadable or
     unwritable)`

// Reader is what the reading commands need of an open book.
type Reader interface {
	Resolve(ptr string) (bookview.ItemView, error)
	// ItemText returns the item with an ID without its Markdown.
	ItemText(id int) (bookview.ItemView, bool)
	Read(ptr string, before, after int) (bookview.ReadView, error)
	Items(from string, limit int, kinds []document.Kind) (bookview.ItemsView, error)
	Outline() (bookview.OutlineView, error)
	CreateCursor(spec cursor.Spec) (cursor.Info, error)
	Next(name string) (cursor.Portion, error)
	Search(query string, mode bookview.SearchMode, opt search.Options) ([]search.Result, error)
}

// EntryReader is a Reader that knows the book's codex (docs/codex.md): the
// command line's editor session does, a book read from its cache
// (internal/quick) does not.
type EntryReader interface {
	// FindEntry lists the items naming a codex entry (its ID, name or an
	// alias) and says whether the limit may have cut the list.
	FindEntry(entry string, opt search.Options) (FoundEntry, []search.Result, bool, error)
	// EntryCursor creates a cursor over the items naming a codex entry.
	EntryCursor(entry string, spec cursor.Spec) (cursor.Info, error)
}

// errNoCodex is the error of --entry over a Reader without a codex.
var errNoCodex = errors.New("--entry needs the book's codex, which this reader does not have")

// TargetsReader is a Reader that knows the target sets saved beside the
// book (aite navigate --save): the command line's editor session does, a
// book read from its cache (internal/quick) does not.
type TargetsReader interface {
	// TargetsCursor creates a cursor over the live items of a saved target
	// set, in document order; spec's other filters (kinds, regex, within)
	// still apply.
	// It also returns how many of the set's items no longer exist.
	TargetsCursor(name string, spec cursor.Spec) (cursor.Info, int, error)
}

// NoteGone tells on w that gone of the items of the saved target set name
// no longer exist (deleted, or rewritten by another program), so a walk of
// the set covers only the live ones.
func NoteGone(w io.Writer, name string, gone, live int) {
	if gone > 0 && w != nil {
		fmt.Fprintf(w, "aite: note: %s of the saved target set %q no longer %s (deleted or rewritten); walking the %d that remain\n",
			Plural(gone, "item"), name, ExistVerb(gone), live)
	}
}

// ExistVerb is "exists" for one, "exist" for any other number.
func ExistVerb(n int) string {
	if n == 1 {
		return "exists"
	}
	return "exist"
}

// errNoTargets is the error of --targets over a Reader without them.
var errNoTargets = errors.New("--targets needs the target sets saved beside the book, which this reader does not have")

// Book is a book the reading commands work on.
type Book struct {
	r Reader
	// renumbered says the items were numbered afresh (aite had no record of
	// the book's item IDs), so a pointer listed before may name another
	// item (Stale).
	renumbered bool
}

// NewBook returns the reading side of a book; renumbered says its items
// were numbered afresh instead of getting their recorded IDs.
func NewBook(r Reader, renumbered bool) *Book { return &Book{r: r, renumbered: renumbered} }

// ByID returns the item with the given ID, without its Markdown (nothing
// that lists items shows it).
func (b *Book) ByID(id int) (bookview.ItemView, bool) { return b.r.ItemText(id) }

// byLabel returns the item with the given current label. A bare number is
// an ID to the pointer parser, so single-counter heading labels (`2`) are
// looked up in the outline instead.
func (b *Book) byLabel(label string) (bookview.ItemView, bool) {
	if _, err := strconv.Atoi(label); err != nil {
		v, err := b.r.Resolve(label)
		return v, err == nil
	}
	ol, err := b.r.Outline()
	if err != nil {
		return bookview.ItemView{}, false
	}
	for _, s := range ol.Sections {
		if s.Pointer.Label == label {
			return b.ByID(s.Pointer.ID)
		}
	}
	return bookview.ItemView{}, false
}

// UsageError marks bad flags or arguments; its report points to --help.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// PointerError is a document.PointerError together with the items its
// nearest pointers name, so the report can show what they are.
type PointerError struct {
	*document.PointerError
	Items []bookview.ItemView
}

// Unwrap gives errors.As access to the document.PointerError.
func (e *PointerError) Unwrap() error { return e.PointerError }

// WithNearest attaches the items named by a pointer error's nearest pointers
// to err; any other error is returned unchanged.
func (b *Book) WithNearest(err error) error {
	var pe *document.PointerError
	if !errors.As(err, &pe) {
		return err
	}
	out := &PointerError{PointerError: pe}
	for _, p := range pe.Nearest {
		if it, ok := b.ByID(p.ID); ok {
			out.Items = append(out.Items, it)
		}
	}
	return out
}

// PointerMessage is a pointer error's message without the list of nearest
// pointers.
func PointerMessage(pe *document.PointerError) string {
	return fmt.Sprintf("pointer %s: %s", strconv.Quote(pe.Input), pe.Reason)
}

// IOError marks an error as an I/O failure (exit code 2): a book, a text
// file or standard input that cannot be read, output that cannot be
// written.
type IOError struct{ Err error }

func (e *IOError) Error() string { return e.Err.Error() }

func (e *IOError) Unwrap() error { return e.Err }
