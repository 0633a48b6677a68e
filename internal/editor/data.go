package editor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// What the session derives from a book and keeps beside it — its codex
// (codex.json), its vector index (vectors.bin), the plan of an interrupted
// codex build (codex-build.json) — lives in the state directory of a book
// file, and in a DataStore for a book held in memory (the server's
// document store). Without a DataStore a book in memory keeps it only in
// the session.

// DataStore keeps the named data of books held in memory. Its calls run
// under the session's lock, so they should be quick.
type DataStore interface {
	// LoadData returns the data called name of a book: nil (and no
	// error) when there is none.
	LoadData(book, name string) ([]byte, error)
	// SaveData stores (or replaces) the data called name of a book.
	SaveData(book, name string, data []byte) error
}

// SetDataStore makes the session keep the data of its books held in
// memory (Load, LoadWithIDs) in ds, now and for the books loaded later.
func (s *Session) SetDataStore(ds DataStore) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data = ds
	for _, b := range s.books {
		if b.path == "" {
			b.store = ds
		}
	}
}

// readData reads a named file of the book's data; nil when there is none.
// Caller holds the lock.
func (b *book) readData(name string) ([]byte, error) {
	switch {
	case b.path != "":
		data, err := os.ReadFile(filepath.Join(StateDir(b.path), name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return data, err
	case b.store != nil:
		return b.store.LoadData(b.id, name)
	}
	return nil, nil
}

// writeData writes a named file of the book's data (atomically beside a
// book file). A book in memory without a DataStore keeps nothing. Caller
// holds the lock.
func (b *book) writeData(name string, data []byte) error {
	var err error
	switch {
	case b.path != "":
		err = writeStateFile(filepath.Join(StateDir(b.path), name), data)
	case b.store != nil:
		err = b.store.SaveData(b.id, name, data)
	}
	if err != nil {
		return fmt.Errorf("%w: cannot store %s: %w", ErrIO, name, err)
	}
	return nil
}

// setAside keeps a damaged file of a book file's data under another name
// (name.damaged-TIME), so nothing is lost when it is written anew; it
// returns where, or "" for a book in memory (whose store keeps the value
// until it is replaced).
func (b *book) setAside(name string) string {
	if b.path == "" {
		return ""
	}
	path := filepath.Join(StateDir(b.path), name)
	aside := fmt.Sprintf("%s.damaged-%s", path, time.Now().UTC().Format("20060102T150405"))
	if os.Rename(path, aside) != nil {
		return ""
	}
	return aside
}

// dataWhere names where a book's data file is, for messages.
func (b *book) dataWhere(name string) string {
	if b.path != "" {
		return filepath.Join(StateDir(b.path), name)
	}
	return fmt.Sprintf("the %s of book %s", name, b.id)
}

// LoadData returns the data called name of a book (see DataStore): from
// the state directory of a book file or the session's DataStore; nil when
// there is none.
func (s *Session) LoadData(id, name string) ([]byte, error) {
	var out []byte
	err := s.with(id, func(b *book) error {
		var err error
		out, err = b.readData(name)
		return err
	})
	return out, err
}

// SaveData stores the data called name of a book, where LoadData reads it.
func (s *Session) SaveData(id, name string, data []byte) error {
	return s.with(id, func(b *book) error { return b.writeData(name, data) })
}
