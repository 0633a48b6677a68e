// Package editor is the single API over open books that the CLI, the agent
// tools, the HTTP server and the MCP server call: a Session opens documents
// and holds, per document, the cursors and target sets, the search index
// (kept up to date incrementally), the journaled edits with undo, and the
// atomic save.
//
// A Session is safe for concurrent use; every call holds the session lock
// for its duration. Results are values: nothing returned aliases the
// document's internal state.
package editor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aitexteditor/aite/internal/atomicfile"
	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/search"
)

// Errors of the session.
var (
	ErrUnknownBook = errors.New("no such book in the session")
	ErrIO          = errors.New("book file")
)

// Session holds open books.
type Session struct {
	mu    sync.Mutex
	books map[string]*book
	emb   *Embeddings // search by meaning; nil when off
	data  DataStore   // the data of books held in memory; nil: kept in the session only
	once  bool        // serves one command (ForOneCommand)
	// meanwhile: the caches are written beside the command (CacheMeanwhile).
	meanwhile bool
}

type book struct {
	id, path   string
	doc        *document.Document
	index      *search.Index // built on first use
	reg        *cursor.Registry
	saved      document.Text // the source as last read or saved
	savedVer   int
	savedEdits int // journal length at the last save
	// rec is the ID record of the file at path as last read or saved (nil
	// for books without a file); origin, newIDs and warning describe how
	// the IDs were found when it was opened.
	rec     *idRecord
	origin  IDOrigin
	newIDs  int
	warning string
	cached  bool
	// checked says the source as last read or saved passed CheckText (a
	// book opened from its file): only then is a cache written for it.
	checked bool
	// indexKept says the cache beside the book file holds the index of
	// its current version, cacheStale that it does not hold that version.
	indexKept, cacheStale bool
	// caching, while a cache is written beside the command's work
	// (CacheMeanwhile), gives that write's error once it is done.
	caching chan error
	codex   bookCodex   // loaded on first use
	vec     bookVectors // loaded on first use
	store   DataStore   // where a book held in memory keeps its data (nil: nowhere)
}

// New returns an empty session.
func New() *Session { return &Session{books: map[string]*book{}} }

// BookInfo describes an open book.
type BookInfo struct {
	ID      string `json:"id"`
	Path    string `json:"path,omitempty"`
	Items   int    `json:"items"`
	Bytes   int    `json:"bytes"`
	Version int    `json:"version"`
	Edits   int    `json:"edits"`
	// Unsaved counts the edits since the book was last read or saved.
	Unsaved int  `json:"unsaved"`
	Dirty   bool `json:"dirty"`
	// IDs says where the item IDs of a book opened from a file came from
	// (recorded, carried or new) and NewIDs how many items got IDs they did
	// not have before; Warning says why the IDs could not be recorded.
	IDs     IDOrigin `json:"ids,omitempty"`
	NewIDs  int      `json:"newIds,omitempty"`
	Warning string   `json:"warning,omitempty"`
	// Cached says the items and the search index came from the cache
	// beside the book (bookcache) instead of a parse.
	Cached bool `json:"cached,omitempty"`
}

// Open reads a Markdown file into the session; its ID is the path as
// given. Opening an open path returns the open book.
//
// The items get the IDs recorded in the book's state file (StatePath), so
// pointers stay valid from one process to the next. If another program
// changed the file since, unchanged items keep their IDs and new or
// rewritten ones get IDs never used before (document.CarryIDs); without a
// usable record the items are numbered 1..N. Whenever the IDs are not
// exactly the recorded ones the state file is written, so the next open
// agrees; failing to write it is reported in BookInfo.Warning, not as an
// error. A file that is not UTF-8 text is refused (ErrEncoding).
func (s *Session) Open(path string) (BookInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.books[path]; b != nil {
		return b.info(), nil
	}
	src, mtime, err := readBook(path)
	if err != nil {
		return BookInfo{}, fmt.Errorf("%w: %w", ErrIO, err)
	}
	old, rerr := readRecord(path)
	c := loadCache(path, src, mtime, old)
	b := &book{id: path, path: path, saved: document.TextOf(src), checked: true}
	sha := ""
	var hashes []uint64 // of the items, when the parse computed them
	b.cached = c != nil
	switch {
	case c != nil && c.ids: // the cache holds this version with the recorded IDs
		b.doc, b.index, b.origin, sha = c.doc, c.index, IDsRecorded, c.sha
	case c != nil: // this version, but the IDs were recorded again since
		b.doc, b.index, sha = c.doc, c.index, c.sha
		before, _ := b.doc.ItemIDs()
		b.origin, b.newIDs = adopt(b.doc, old, sha)
		if after, _ := b.doc.ItemIDs(); !slices.Equal(before, after) {
			b.index = nil // it names items by ID
		}
	default: // a cache is only ever written for a text that passes (see Save)
		if b.doc, sha, hashes, err = parseBook(path, src); err != nil {
			return BookInfo{}, err
		}
		b.origin, b.newIDs = adoptWith(b.doc, old, sha, hashes)
		if len(src) >= lightenFrom {
			b.doc = lighten(b.doc)
		}
	}
	b.reg = cursor.NewRegistry(b.doc) // after the IDs are final
	if rerr != nil {
		b.warning = fmt.Sprintf("ignored the state file %s (%v); ", StatePath(path), rerr)
	}
	b.rec = old
	var state []byte // the state file to write: the IDs are not those recorded
	if b.origin != IDsRecorded {
		b.rec = recordWith(b.doc, sha, hashes)
		state = b.rec.encode(path)
	}
	b.indexKept = c != nil && c.ids && c.index != nil
	b.cacheStale = c == nil || !c.ids // written by Close or Save: once, with the index if a search built it
	if s.meanwhile {                  // beside the state file's write too, for the state it writes
		rec := *b.rec
		if state != nil {
			rec.raw = state
		}
		b.cacheMeanwhile(&rec)
	}
	if state != nil {
		if err := writeStateFile(StatePath(path), state); err != nil {
			b.warning += fmt.Sprintf("cannot record the item IDs (%v), so pointers may change when the book changes", err)
		} else {
			b.rec.raw = state
		}
	}
	b.warning = strings.TrimSuffix(b.warning, "; ")
	s.books[path] = b
	return b.info(), nil
}

// readBook reads a book file and its modification time (Unix ns).
func readBook(path string) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	src := make([]byte, fi.Size())
	n, err := io.ReadFull(f, src)
	if err == io.ErrUnexpectedEOF { // it shrank meanwhile: what there is
		err = nil
	}
	return src[:n], fi.ModTime().UnixNano(), err
}

// Load puts a book held in memory into the session under an ID (replacing
// a book of that ID). It has no file until saved with a path.
func (s *Session) Load(id string, src []byte) BookInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := newBook(id, "", bytes.Clone(src))
	b.store = s.data
	s.books[id] = b
	return b.info()
}

// LoadWithIDs is Load for a book whose item IDs were recorded (ItemIDs) by
// an earlier session: the parsed items get ids in document order and the
// next new item gets next, so every pointer of the earlier session names
// the same item. If the IDs do not fit the parsed source (see
// document.RestoreIDs) it returns an error wrapping document.ErrIDs and
// the session is unchanged.
func (s *Session) LoadWithIDs(id string, src []byte, ids []int, next int) (BookInfo, error) {
	src = bytes.Clone(src)
	d := markdown.Parse(src)
	if err := d.RestoreIDs(ids, next); err != nil {
		return BookInfo{}, fmt.Errorf("book %q: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := bookOf(id, "", src, d)
	b.store = s.data
	s.books[id] = b
	return b.info(), nil
}

// ItemIDs returns the IDs of the book's items in document order and the ID
// its next new item will get: what LoadWithIDs needs to load the book's
// source again with the same pointers.
func (s *Session) ItemIDs(id string) (ids []int, next int, err error) {
	err = s.with(id, func(b *book) error {
		ids, next = b.doc.ItemIDs()
		return nil
	})
	return ids, next, err
}

func newBook(id, path string, src []byte) *book {
	return bookOf(id, path, src, markdown.Parse(src))
}

// bookOf wraps a parsed document. The cursors are made here and the search
// index on first use, so both see the document's final IDs.
func bookOf(id, path string, src []byte, d *document.Document) *book {
	return &book{id: id, path: path, doc: d, reg: cursor.NewRegistry(d), saved: document.TextOf(src)}
}

// Close drops a book from the session (unsaved edits are lost). For a book
// file whose unsaved edits handed out IDs, the state file keeps the next ID
// above them, so a pointer shown for an edit that was never written can
// never name another item later.
func (s *Session) Close(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.books[id]
	if b == nil {
		return s.unknown(id)
	}
	delete(s.books, id)
	b.awaitCache()
	if _, next := b.doc.ItemIDs(); b.path != "" && b.rec != nil && next > b.rec.next {
		r := *b.rec
		r.next = next
		return writeRecord(b.path, &r)
	}
	if b.cacheDue() {
		// The book as it is on disk, with the index this session's searches
		// built: kept in its cache for the next command.
		_ = writeCache(b.path, b.doc, b.index, b.rec.sha, b.rec) // best effort: the next command parses again
	}
	return nil
}

// cacheDue reports whether the cache beside the book file lacks the book
// as it is on disk or the index this session's searches built for it.
func (b *book) cacheDue() bool {
	return b.path != "" && b.checked && (b.cacheStale || b.index != nil && !b.indexKept) && b.doc.Version() == b.savedVer
}

// awaitCache waits for the cache write CacheMeanwhile started, if any,
// and notes whether it wrote the cache.
func (b *book) awaitCache() {
	if b.caching == nil {
		return
	}
	err := <-b.caching
	b.caching = nil
	b.cacheStale, b.indexKept = err != nil, err == nil && b.indexKept
}

// Books describes the open books by ID.
func (s *Session) Books() []BookInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]BookInfo, 0, len(s.books))
	for _, b := range s.books {
		out = append(out, b.info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (b *book) info() BookInfo {
	return BookInfo{ID: b.id, Path: b.path, Items: b.doc.Len(), Bytes: b.doc.Size(),
		Version: b.doc.Version(), Edits: len(b.doc.Journal()), Dirty: b.doc.Version() != b.savedVer,
		Unsaved: max(0, len(b.doc.Journal())-b.savedEdits), IDs: b.origin, NewIDs: b.newIDs, Warning: b.warning,
		Cached: b.cached}
}

func (s *Session) unknown(id string) error {
	ids := make([]string, 0, len(s.books))
	for k := range s.books {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	return fmt.Errorf("%w: %q (open books: %v)", ErrUnknownBook, id, ids)
}

// with runs f on a book under the lock.
func (s *Session) with(id string, f func(*book) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.books[id]
	if b == nil {
		return s.unknown(id)
	}
	return f(b)
}

// idx returns the book's search index, built or brought up to date.
func (b *book) idx() *search.Index {
	b.index = bookview.IndexFor(b.index, b.doc)
	return b.index
}

// Source returns a copy of the book's current bytes.
func (s *Session) Source(id string) ([]byte, error) {
	var out []byte
	err := s.with(id, func(b *book) error { out = bytes.Clone(b.doc.Source()); return nil })
	return out, err
}

// Version returns the version of a book's text: it changes with every
// edit (document.Document.Version). A book loaded again starts afresh.
func (s *Session) Version(id string) (int, error) {
	var v int
	err := s.with(id, func(b *book) error { v = b.doc.Version(); return nil })
	return v, err
}

// ChangeSince returns what the edits of a book since version since did to
// its text and item IDs, at a cost in proportion to the change
// (document.Document.ChangeSince); false when that is not known (the book
// was loaded again, or too many edits were made since).
func (s *Session) ChangeSince(id string, since int) (document.Change, bool, error) {
	var c document.Change
	var ok bool
	err := s.with(id, func(b *book) error { c, ok = b.doc.ChangeSince(since); return nil })
	return c, ok, err
}

// SaveOptions controls Save.
type SaveOptions struct {
	// Path to write; "" writes to the book's own path.
	Path string
	// Backup keeps the previous version as Path+".bak".
	Backup bool
	// Force writes even when nothing changed since the last save.
	Force bool
	// Record, when set, journals the save as a command with this label, so
	// `UndoCommand` can restore the version before it (book files only).
	Record string
	// ForceReadOnly replaces a file that has no write permission; without
	// it such a save fails with ErrReadOnly.
	ForceReadOnly bool
}

// SaveResult reports a save.
type SaveResult struct {
	Path    string `json:"path"`
	Backup  string `json:"backup,omitempty"`
	Bytes   int    `json:"bytes"`
	Written bool   `json:"written"`
	// Warning says why the item IDs could not be recorded beside the file.
	Warning string `json:"warning,omitempty"`
}

// Save writes the book atomically (temp file, fsync, rename, keeping the
// file's mode and, where allowed, its owner), with a backup of the previous
// version when asked, then records the item IDs in the file's state
// (StatePath) and, with Record, journals the write for UndoCommand. This is
// the one way a book file is written: open (Open), edit (Edit), save.
func (s *Session) Save(id string, opt SaveOptions) (SaveResult, error) {
	var res SaveResult
	err := s.with(id, func(b *book) error {
		b.awaitCache()
		path := opt.Path
		if path == "" {
			path = b.path
		}
		if path == "" {
			return fmt.Errorf("%w: book %q has no file; give a path to save it to", ErrIO, id)
		}
		src := b.doc.SourceText()
		res = SaveResult{Path: path, Bytes: src.Len()}
		if !opt.Force && path == b.path && b.doc.Version() == b.savedVer {
			return nil
		}
		if err := checkWritable(path, opt.ForceReadOnly); err != nil {
			return err
		}
		if err := atomicfile.WriteParts(path, src.Parts(), atomicfile.Options{Backup: opt.Backup}); err != nil {
			return fmt.Errorf("%w: %w", ErrIO, err)
		}
		res.Written = true
		if bak := backupOf(path); opt.Backup && exists(bak) {
			res.Backup = bak
		}
		rec := b.recordNow()
		if err := writeRecord(path, rec); err != nil {
			res.Warning = fmt.Sprintf("cannot record the item IDs of %s (%v)", path, err)
		}
		cerr := errNotText
		text := b.changedText(path)
		if text == nil { // else no cache: the next open refuses the book, as without one
			cerr = writeCache(path, b.doc, b.index, rec.sha, rec) // best effort: the next command parses again
		}
		own := path == b.path || b.path == ""
		if opt.Record != "" && own {
			edits := len(b.doc.Journal()) - b.savedEdits
			c := CommandRecord{Label: opt.Record, Time: time.Now(), Before: b.savedDigest(), After: rec.sha,
				Change: changeOf(b.saved, src, b.spanOf()), Edits: max(edits, 0)}
			if err := record(path, c, b.rec); err != nil {
				return err
			}
		}
		if own {
			b.path, b.saved, b.savedVer = path, src, b.doc.Version() // a document never changes its source in place
			b.savedEdits, b.rec = len(b.doc.Journal()), rec
			b.indexKept, b.cacheStale = cerr == nil && b.index != nil, cerr != nil
			b.checked = text == nil
		}
		return nil
	})
	return res, err
}

// backupOf is where atomicfile keeps the backup of path: beside the file a
// symlink points to.
func backupOf(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p + ".bak"
	}
	return path + ".bak"
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Diff returns the unified diff from the last read or saved version to the
// current one ("" when equal).
func (s *Session) Diff(id string) (string, error) {
	var out string
	err := s.with(id, func(b *book) error {
		name := strings.TrimLeft(filepath.ToSlash(filepath.Clean(b.id)), "/")
		out = unifiedDiff("a/"+name, "b/"+name, b.saved, b.doc.SourceText(), b.spanOf(), 3)
		return nil
	})
	return out, err
}
