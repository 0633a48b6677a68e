package editor

import (
	"fmt"

	"github.com/aitexteditor/aite/internal/bookview"
	"github.com/aitexteditor/aite/internal/cursor"
	"github.com/aitexteditor/aite/internal/search"
)

// CreateCursor makes (or re-creates) a named cursor over a book.
func (s *Session) CreateCursor(id string, spec cursor.Spec) (cursor.Info, error) {
	var out cursor.Info
	err := s.with(id, func(b *book) error {
		var err error
		out, err = b.reg.Create(b.doc, spec)
		return err
	})
	return out, err
}

// Next returns a cursor's next portion.
func (s *Session) Next(id, name string) (cursor.Portion, error) {
	var out cursor.Portion
	err := s.with(id, func(b *book) error {
		var err error
		var x cursor.KeywordIndex
		if b.reg.NeedsIndex(b.doc, name) {
			x = b.keywordIndex(s.once)
		}
		out, err = b.reg.Next(b.doc, x, name)
		return err
	})
	return out, err
}

// ForOneCommand marks the session as serving one command on its books (a
// reading command of the command line): a keyword cursor on a book that
// has no index yet matches the words in the texts of the items, which
// reads each text once, instead of building the index, which costs about
// as much as the parse (the next command that searches builds it and
// keeps it in the book's cache). The items matched are the same.
func (s *Session) ForOneCommand() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.once = true
}

// CacheMeanwhile has the cache that Close would write after the command
// (a book just parsed: its items, without an index) written beside the
// command's own work: now for each open book, and for a book opened later
// as soon as its item IDs are recorded (beside the state file's write).
// It is for a command that neither edits the books nor builds their index
// (Close would then write the cache again, with it). Close, Save, and an
// edit or reload of the book wait for the write, which reads the
// document as the command does.
func (s *Session) CacheMeanwhile() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.meanwhile = true
	for _, b := range s.books {
		if b.rec != nil {
			rec := *b.rec
			b.cacheMeanwhile(&rec)
		}
	}
}

// cacheMeanwhile starts writing the book's cache in the background, if it
// is due (see Session.CacheMeanwhile), for the state file rec (which the
// write alone reads).
func (b *book) cacheMeanwhile(rec *idRecord) {
	if b.caching != nil || !b.cacheDue() {
		return
	}
	done := make(chan error, 1)
	path, d, x := b.path, b.doc, b.index
	go func() { done <- writeCache(path, d, x, rec.sha, rec) }()
	b.caching, b.indexKept = done, x != nil
}

// keywordIndex is the index a keyword cursor uses: the book's when it
// reflects the document; else, for one command, none (the cursor scans);
// else the index built now.
func (b *book) keywordIndex(once bool) cursor.KeywordIndex {
	switch {
	case b.index != nil && b.index.Version() == b.doc.Version():
		return b.index
	case once:
		return nil
	}
	return b.idx()
}

// ResetCursor puts a cursor back at its start.
func (s *Session) ResetCursor(id, name string) error {
	return s.with(id, func(b *book) error { return b.reg.Reset(name) })
}

// DeleteCursor removes a cursor.
func (s *Session) DeleteCursor(id, name string) error {
	return s.with(id, func(b *book) error { return b.reg.Delete(name) })
}

// Cursors lists a book's cursors.
func (s *Session) Cursors(id string) ([]cursor.Info, error) {
	var out []cursor.Info
	err := s.with(id, func(b *book) error { out = b.reg.List(); return nil })
	return out, err
}

// SearchMode selects exact phrase or ranked search.
type SearchMode = bookview.SearchMode

// Search modes.
const (
	Exact  = bookview.Exact
	Ranked = bookview.Ranked
	All    = bookview.All
)

// Search finds items: exact normalised phrase (document order), every word
// in any form (document order) or BM25 ranking (best first). Results are
// pointers with scores and snippets.
func (s *Session) Search(id, query string, mode SearchMode, opt search.Options) ([]search.Result, error) {
	var out []search.Result
	err := s.with(id, func(b *book) error {
		var err error
		out, err = bookview.Search(b.idx(), b.doc, query, mode, opt)
		return err
	})
	return out, err
}

// CursorFromSearch runs a search and makes a cursor that walks its results
// in their order. spec gives the name and limits (its type is set to search).
func (s *Session) CursorFromSearch(id, query string, mode SearchMode, opt search.Options, spec cursor.Spec) (cursor.Info, error) {
	res, err := s.Search(id, query, mode, opt)
	if err != nil {
		return cursor.Info{}, err
	}
	spec.Type, spec.IDs = cursor.Search, make([]int, len(res))
	for i, r := range res {
		spec.IDs[i] = r.ID
	}
	if spec.Description == "" {
		spec.Description = fmt.Sprintf("%s search for %q", mode, query)
	}
	return s.CreateCursor(id, spec)
}

// Cursor describes one cursor of a book.
func (s *Session) Cursor(id, name string) (cursor.Info, error) {
	var out cursor.Info
	err := s.with(id, func(b *book) error {
		var err error
		out, err = b.reg.Get(name)
		return err
	})
	return out, err
}
