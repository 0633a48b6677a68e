// Package bookcache keeps what aite knows about a book file in the hidden
// directory beside it (`.NAME.aite/`, StateDir): where its files live, how
// they are written (atomically, never beside a folder marked read-only),
// and the cache of the parsed book and its search index (cache.bin), so a
// command on an unchanged book reads its items and index instead of
// parsing and analysing the whole book again.
//
// The cache is valid for exactly one version of the book and of its item
// IDs: it records the book's size, modification time (to the nanosecond)
// and the CRC-32 of all its bytes (hardware-accelerated: 0.2 ms for a
// 5.6 MB book, so every use checks the whole book; a change of up to 32
// adjacent bits is always seen, any other with a chance of 1 in 4·10⁹ of
// being missed, and only by a change that also kept the size and the
// modification time), and the size and CRC-32 of the state file
// (state.json) it was written with. A cache whose book or state does not match, whose
// own checksums fail, that is truncated, of another format or version, or
// unreadable, is ignored and rebuilt: never trusted. Deleting it costs one
// parse.
//
// File layout (little-endian): a header (magic, version, the book's size,
// modification time, checksum and SHA-256, the state file's size and
// checksum, the section table with each section's offset, length and
// CRC-32C, and the header's own CRC-32C), then the sections: the encoded
// document, the encoded search index and the parser's state.
package bookcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/aitexteditor/aite/internal/atomicfile"
)

// StateDir returns the hidden directory that holds aite's records of a book
// file: `.NAME.aite` beside it (beside the file a symlink points to).
func StateDir(book string) string {
	if p, err := filepath.EvalSymlinks(book); err == nil {
		book = p
	}
	return filepath.Join(filepath.Dir(book), "."+filepath.Base(book)+".aite")
}

// StatePath is the file that records a book file's item IDs.
func StatePath(book string) string { return filepath.Join(StateDir(book), "state.json") }

// CachePath is the cache of a book file's parsed items and search index.
func CachePath(book string) string { return filepath.Join(StateDir(book), "cache.bin") }

// WriteFile writes one file of a state directory atomically (temp file,
// fsync, rename), creating the directory when needed. The directory is not
// created beside a book whose folder has no write permission bit at all (a
// folder marked read-only, also for root, who could write there anyway).
func WriteFile(path string, b []byte) error { return writeParts(path, [][]byte{b}, true) }

// writeParts is WriteFile of the concatenation of parts; without sync the
// file is not fsynced (a cache, which its checksums check).
func writeParts(path string, parts [][]byte, sync bool) error {
	if err := MakeDir(filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.WriteParts(path, parts, atomicfile.Options{Perm: 0o644, NoSync: !sync})
}

// MakeDir creates a book's state directory (StateDir), but not beside a
// book whose folder has no write permission bit at all (a folder marked
// read-only, also for root, who could write there anyway): the rule of
// every file in it.
func MakeDir(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if fi, err := os.Stat(filepath.Dir(dir)); err == nil && fi.Mode().Perm()&0o222 == 0 {
			return fmt.Errorf("the folder %s is read-only", filepath.Dir(dir))
		}
	}
	return os.MkdirAll(dir, 0o755)
}

// ErrStale is wrapped by the errors that say why a cache is not used: it
// is missing, damaged, of another version, or describes another version of
// the book or of its state.
var ErrStale = errors.New("no usable cache")

const (
	magic   = "AITECACH"
	version = 1
)

// The sections of a cache.
const (
	SecDocument = iota // document.Document.Encode
	SecIndex           // search.Index.Encode
	SecParser          // the parser's state (markdown.Parser.MarshalBinary)
	// NumSections is the number of sections.
	NumSections
)

// Header sizes: fixed fields, then one entry per section, then the CRC.
const (
	fixedSize  = 8 + 4 + 4 + 8 + 8 + 8 + 32 + 8 + 4 + 4
	entrySize  = 8 + 8 + 4 + 4
	headerSize = fixedSize + NumSections*entrySize + 4
)

// Book identifies one version of a book file.
type Book struct {
	Size  int64
	Mtime int64 // modification time, Unix nanoseconds
	Sum   uint32
	SHA   [32]byte
}

// Checksum is the checksum of a book's bytes that a cache records: the
// CRC-32 (IEEE, computed with carry-less multiplication where the
// processor has it, as every x86-64 and arm64 of the last decade does),
// of src given whole or in pieces that, one after the other, are its bytes.
func Checksum(src ...[]byte) uint32 {
	sum := uint32(0)
	for _, p := range src {
		sum = crc32.Update(sum, crc32.IEEETable, p)
	}
	return sum
}

// stateSum is what a cache records of the state file: its size and CRC-32.
func stateSum(state []byte) (int64, uint32) {
	return int64(len(state)), crc32.ChecksumIEEE(state)
}

// Cache is a cache read back: the book version it describes, the state
// file it was written with and its sections, which refer to the bytes read
// (or mapped) without copying.
type Cache struct {
	Book       Book
	Sections   [NumSections][]byte
	stateSize  int64
	stateCRC32 uint32
}

// StateMatches reports whether the cache was written with the state file
// whose bytes are state: then the item IDs it holds are the recorded ones.
func (c *Cache) StateMatches(state []byte) bool {
	n, sum := stateSum(state)
	return n == c.stateSize && sum == c.stateCRC32
}

// Sections are what a cache holds, each section given as the parts that,
// one after the other, make it (so nothing has to be joined in memory).
type Sections [NumSections][][]byte

// Encode returns the parts of the file of a cache for the book version b
// (its SHA-256 given, or computed from src, the book's bytes in pieces,
// when zero), written with the state file bytes state.
func Encode(b Book, src [][]byte, state []byte, secs Sections) [][]byte {
	if b.SHA == [32]byte{} {
		h := sha256.New()
		for _, p := range src {
			h.Write(p)
		}
		h.Sum(b.SHA[:0])
	}
	head := make([]byte, headerSize)
	copy(head, magic)
	le := binary.LittleEndian
	le.PutUint32(head[8:], version)
	le.PutUint64(head[16:], uint64(b.Size))
	le.PutUint64(head[24:], uint64(b.Mtime))
	le.PutUint64(head[32:], uint64(b.Sum))
	copy(head[40:72], b.SHA[:])
	n, sum := stateSum(state)
	le.PutUint64(head[72:], uint64(n))
	le.PutUint32(head[80:], sum)
	le.PutUint32(head[84:], NumSections)
	off := headerSize
	parts := [][]byte{head}
	for i, sec := range secs {
		e := head[fixedSize+i*entrySize:]
		crc, size := uint32(0), 0
		for _, p := range sec {
			crc = crc32.Update(crc, crc32.IEEETable, p)
			size += len(p)
		}
		le.PutUint64(e, uint64(off))
		le.PutUint64(e[8:], uint64(size))
		le.PutUint32(e[16:], crc)
		off += size
		parts = append(parts, sec...)
	}
	le.PutUint32(head[headerSize-4:], crc32.ChecksumIEEE(head[:headerSize-4]))
	return parts
}

// Write writes the cache of the book file at path for the version src,
// given as the pieces that, one after the other, are its bytes (atomically, but not fsynced: a cache torn by a crash fails its checksums),
// which the caller read from it and whose state file it wrote as state;
// sha is the SHA-256 of src when known (else zero). The modification time
// is the file's now: should the file have changed since src was read, the
// checksum will not match and the cache is never used.
func Write(path string, src [][]byte, sha [32]byte, state []byte, secs Sections) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	size := int64(0)
	for _, p := range src {
		size += int64(len(p))
	}
	if fi.Size() != size {
		return fmt.Errorf("%s changed while aite read it", path)
	}
	b := Book{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Sum: Checksum(src...), SHA: sha}
	return writeParts(CachePath(path), Encode(b, src, state, secs), false)
}

// Decode checks the bytes of a cache against the book version src (with
// the modification time mtime) and returns its sections. Any mismatch or
// damage gives an error wrapping ErrStale that says what did not match.
// Whether its item IDs are the recorded ones is StateMatches.
func Decode(data, src []byte, mtime int64) (*Cache, error) {
	c, err := decodeHeader(data)
	if err != nil {
		return nil, err
	}
	switch {
	case c.Book.Size != int64(len(src)):
		return nil, stale("the book has %d bytes, the cache was made for %d", len(src), c.Book.Size)
	case c.Book.Mtime != mtime:
		return nil, stale("the book was modified since the cache was made")
	}
	if Checksum(src) != c.Book.Sum {
		return nil, stale("the book's bytes changed since the cache was made")
	}
	for i, s := range c.Sections {
		if crc32.ChecksumIEEE(s) != binary.LittleEndian.Uint32(data[fixedSize+i*entrySize+16:]) {
			return nil, stale("section %d is damaged", i)
		}
	}
	return c, nil
}

func stale(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrStale, fmt.Sprintf(format, args...))
}

// decodeHeader checks the header and splits the sections.
func decodeHeader(data []byte) (*Cache, error) {
	le := binary.LittleEndian
	switch {
	case len(data) < headerSize || string(data[:8]) != magic:
		return nil, stale("not a cache")
	case le.Uint32(data[8:]) != version:
		return nil, stale("cache version %d, not %d", le.Uint32(data[8:]), version)
	case le.Uint32(data[84:]) != NumSections:
		return nil, stale("%d sections, not %d", le.Uint32(data[84:]), NumSections)
	case crc32.ChecksumIEEE(data[:headerSize-4]) != le.Uint32(data[headerSize-4:]):
		return nil, stale("damaged header")
	}
	c := &Cache{Book: Book{Size: int64(le.Uint64(data[16:])), Mtime: int64(le.Uint64(data[24:])), Sum: uint32(le.Uint64(data[32:]))},
		stateSize: int64(le.Uint64(data[72:])), stateCRC32: le.Uint32(data[80:])}
	copy(c.Book.SHA[:], data[40:72])
	end := uint64(headerSize)
	for i := range c.Sections {
		e := data[fixedSize+i*entrySize:]
		off, n := le.Uint64(e), le.Uint64(e[8:])
		if off != end || n > uint64(len(data))-off {
			return nil, stale("section %d lies outside the file", i)
		}
		c.Sections[i] = data[off : off+n : off+n]
		end = off + n
	}
	if end != uint64(len(data)) {
		return nil, stale("%d bytes after the sections", uint64(len(data))-end)
	}
	return c, nil
}
