package bookcache

import (
	"errors"
	"fmt"
	"os"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/search"
)

// Open gives a book file's document and search index (nil when the cache
// keeps none yet) from its cache, for reading only (the document has no
// parser: every edit is refused), or an
// error wrapping ErrStale when the cache is missing or not valid for the
// book as it is now (see Decode). The book, its state and its cache are
// mapped into memory, not read, and never unmapped: Open is for a
// short-lived process that reads a few items of a big book. Should a
// mapped file shrink under the process (another program truncating it in
// place), reading it faults; callers that must survive that run with
// debug.SetPanicOnFault.
func Open(book string) (*Opened, error) {
	src, fi, err := mapFile(book)
	if err != nil {
		return nil, err
	}
	state, _, err := mapFile(StatePath(book))
	if err != nil {
		return nil, stale("no state file (%v)", err)
	}
	data, _, err := mapFile(CachePath(book))
	if err != nil {
		return nil, stale("no cache (%v)", err)
	}
	c, err := Decode(data, src, fi.ModTime().UnixNano())
	if err != nil {
		return nil, err
	}
	if !c.StateMatches(state) {
		return nil, stale("the item IDs were recorded again since the cache was made")
	}
	o := &Opened{path: book, src: src, state: state, data: data, cache: c}
	if o.Doc, err = document.Decode(src, c.Sections[SecDocument], nil); err != nil {
		return nil, stale("%v", err)
	}
	if len(c.Sections[SecIndex]) > 0 { // else no index is kept yet
		if o.Index, err = search.Decode(o.Doc, c.Sections[SecIndex]); err != nil {
			return nil, stale("%v", err)
		}
	}
	return o, nil
}

// Opened is a book opened from its cache.
type Opened struct {
	Doc   *document.Document
	Index *search.Index // nil when the cache keeps no index yet

	path             string
	src, state, data []byte
	cache            *Cache
}

// KeepIndex writes the cache again with x, an index of Doc, so the next
// command finds it there.
func (o *Opened) KeepIndex(x *search.Index) error {
	parts, err := x.EncodeParts()
	if err != nil {
		return err
	}
	c := o.cache
	secs := Sections{SecDocument: {c.Sections[SecDocument]}, SecIndex: parts, SecParser: {c.Sections[SecParser]}}
	return Write(o.path, [][]byte{o.src}, c.Book.SHA, o.state, secs)
}

// Mapped returns the bytes of the files Open mapped (the book, its state
// and its cache): memory the process holds outside the Go heap.
func (o *Opened) Mapped() int64 {
	return int64(len(o.src) + len(o.state) + len(o.data))
}

// mapFile maps a regular file read-only (an empty one is an empty slice).
func mapFile(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close() // a mapping outlives its descriptor
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() == 0 {
		return []byte{}, fi, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return nil, nil, errors.New("file too large to map")
	}
	b, err := mapBytes(f, int(fi.Size()))
	return b, fi, err
}
