package editor

import (
	"encoding/hex"
	"os"

	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/search"
)

// cached is what a book file's cache gave for the bytes read from it.
type cached struct {
	doc   *document.Document
	index *search.Index
	sha   string // SHA-256 of the book, hex
	// ids says the cache was written with the state file as it is now:
	// its item IDs are the recorded ones.
	ids bool
}

// loadCache returns the document and index that the cache beside the book
// file at path holds for src (read from it, modified at mtime), or nil
// when there is no usable cache: then the book is parsed (a stale or
// damaged cache is never an error, only slower). state is the record read
// from the state file (nil if none).
func loadCache(path string, src []byte, mtime int64, state *idRecord) *cached {
	data, err := os.ReadFile(bookcache.CachePath(path))
	if err != nil {
		return nil
	}
	c, err := bookcache.Decode(data, src, mtime)
	if err != nil {
		return nil
	}
	p := &markdown.Parser{}
	if p.UnmarshalBinary(c.Sections[bookcache.SecParser]) != nil {
		return nil
	}
	d, err := document.Decode(src, c.Sections[bookcache.SecDocument], p)
	if err != nil {
		return nil
	}
	var x *search.Index // none kept yet: built when a search needs it
	if len(c.Sections[bookcache.SecIndex]) > 0 {
		if x, err = search.Decode(d, c.Sections[bookcache.SecIndex]); err != nil {
			return nil
		}
	}
	out := &cached{doc: d, index: x, sha: hex.EncodeToString(c.Book.SHA[:])}
	out.ids = state != nil && c.StateMatches(state.raw)
	return out
}

// lightenFrom is the book size from which a freshly parsed book is
// lightened: below it, the memory saved is not worth the decoding.
var lightenFrom = 16 << 20 // a variable for the tests

// lighten returns a freshly parsed document as a decoded one
// (document.Document.Lighten): its encoding holds the items in a fraction
// of their memory, so the parse's items go, as they are encoded, before
// the index is built (which reads the texts without building items) and
// the cache is written (which writes that encoding). The first command on
// a big book then needs far less memory. A document too large to encode
// stays as it is; one whose encoding fails after its items are let go is
// parsed again with its IDs (Lighten does both).
func lighten(d *document.Document) *document.Document {
	out, _ := d.Lighten()
	return out
}

// writeCache writes the cache of the book file at path, whose bytes are
// d's source (SHA-256 sha in hex, or ""), with x when the session has an
// index (brought up to date; none is built for the cache: the first
// search builds it) and the state file as written (state). Failing to
// write it only makes the next command slower, so the error is for tests.
func writeCache(path string, d *document.Document, x *search.Index, sha string, state *idRecord) error {
	if state == nil || state.raw == nil {
		return nil // no state file: a cache could never match it
	}
	var secs bookcache.Sections
	var err error
	if secs[bookcache.SecDocument], err = d.EncodeParts(); err != nil {
		return err
	}
	if x != nil {
		if secs[bookcache.SecIndex], err = x.EncodeParts(); err != nil {
			return err
		}
	}
	if p, ok := d.Parser().(*markdown.Parser); ok {
		state, err := p.MarshalBinary()
		if err != nil {
			return err
		}
		secs[bookcache.SecParser] = [][]byte{state}
	}
	var sum [32]byte
	if b, err := hex.DecodeString(sha); err == nil && len(b) == len(sum) {
		copy(sum[:], b)
	}
	return bookcache.Write(path, d.SourceText().Parts(), sum, state.raw, secs)
}
