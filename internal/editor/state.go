package editor

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/aitexteditor/aite/internal/bookcache"
	"github.com/aitexteditor/aite/internal/document"
)

// The records aite keeps of a book file live in one hidden directory beside
// it, `.BOOK.md.aite/` (StateDir): the item IDs (state.json), the command
// journal (journal.json) and, for the command line, saved target sets and
// cursor-agent tasks. Every file there is optional: a missing, damaged or
// outdated one is ignored and rebuilt, never trusted. Deleting the whole
// directory only renumbers the items (and forgets what `aite undo` could
// restore).

// StateFormat and StateVersion head the state file; a file with another
// format or a higher version is ignored (and replaced on the next write).
const (
	StateFormat  = "aite-book-state"
	StateVersion = 1
)

// StateDir returns the hidden directory that holds aite's records of a book
// file: `.NAME.aite` beside it (beside the file a symlink points to).
func StateDir(book string) string { return bookcache.StateDir(book) }

// StatePath is the file that records a book file's item IDs.
func StatePath(book string) string { return bookcache.StatePath(book) }

// stateFile is the JSON form of the state file. IDs are runs
// (document.FormatIDRuns); hashes are document.ItemHash of each item, in
// document order, as little-endian 64-bit words in base64.
type stateFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Book    string `json:"book"`
	Bytes   int    `json:"bytes"`
	SHA256  string `json:"sha256"`
	Items   int    `json:"items"`
	NextID  int    `json:"nextId"`
	IDs     string `json:"ids"`
	Hashes  string `json:"hashes"`
}

// idRecord is what the state file says about one version of a book file.
type idRecord struct {
	sha    string
	size   int
	ids    []int
	next   int
	hashes []uint64
	// raw is the state file's bytes the record was read from or written
	// as (nil until then): the cache beside the book records them.
	raw []byte
}

// recordOf describes a document as it is (its source must be the file's);
// sha is the SHA-256 of the source in hex, computed when "".
func recordOf(d *document.Document, sha string) *idRecord { return recordWith(d, sha, nil) }

// recordWith is recordOf reusing the item hashes of d when a caller has
// them (nil: computed).
func recordWith(d *document.Document, sha string, hashes []uint64) *idRecord {
	if sha == "" {
		sha = digestText(d.SourceText())
	}
	if hashes == nil {
		hashes = d.ItemHashes()
	}
	ids, next := d.ItemIDs()
	return &idRecord{sha: sha, size: d.Size(), ids: ids, next: next, hashes: hashes}
}

// matches reports whether the record describes exactly these bytes.
func (r *idRecord) matches(src []byte, sha string) bool {
	return r != nil && r.size == len(src) && r.sha == sha
}

// readRecord reads a book file's state. A missing file is (nil, nil); a
// damaged or foreign one is (nil, reason), to be ignored and rebuilt.
func readRecord(book string) (*idRecord, error) {
	b, err := os.ReadFile(StatePath(book))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f stateFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("damaged: %w", err)
	}
	r, err := f.record()
	if r != nil {
		r.raw = b
	}
	return r, err
}

func (f stateFile) record() (*idRecord, error) {
	if f.Format != StateFormat || f.Version != StateVersion {
		return nil, fmt.Errorf("format %q version %d is not %s version %d", f.Format, f.Version, StateFormat, StateVersion)
	}
	ids, err := document.ParseIDRuns(f.IDs, f.Items)
	if err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(f.Hashes)
	if err != nil || len(raw) != 8*f.Items {
		return nil, fmt.Errorf("hashes: %d bytes for %d items (%v)", len(raw), f.Items, err)
	}
	if err := document.CheckNextID(f.NextID, f.Items); err != nil {
		return nil, err // before anything is sized by it
	}
	r := &idRecord{sha: f.SHA256, size: f.Bytes, ids: ids, next: f.NextID, hashes: make([]uint64, f.Items)}
	for i := range r.hashes {
		r.hashes[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	seen := make(map[int]bool, len(ids))
	for _, id := range ids {
		if id >= r.next || seen[id] {
			return nil, fmt.Errorf("ID %d repeated or not below the next ID %d", id, r.next)
		}
		seen[id] = true
	}
	return r, nil
}

// writeRecord writes a book file's state atomically, creating the state
// directory when needed, and keeps the bytes written in r.raw.
func writeRecord(book string, r *idRecord) error {
	b := r.encode(book)
	if err := writeStateFile(StatePath(book), b); err != nil {
		return err
	}
	r.raw = b
	return nil
}

// encode returns the state file of r for the book file at book, as
// writeRecord writes it.
func (r *idRecord) encode(book string) []byte {
	raw := make([]byte, 8*len(r.hashes))
	for i, h := range r.hashes {
		binary.LittleEndian.PutUint64(raw[8*i:], h)
	}
	f := stateFile{Format: StateFormat, Version: StateVersion, Book: filepath.Base(book), Bytes: r.size,
		SHA256: r.sha, Items: len(r.ids), NextID: r.next, IDs: document.FormatIDRuns(r.ids),
		Hashes: base64.StdEncoding.EncodeToString(raw)}
	return append(f.marshal(), '\n')
}

// marshal returns json.MarshalIndent(f, "", " "), byte for byte, without
// its second pass over every byte (the hashes of a big book's items, in
// base64, are nearly all of them).
func (f stateFile) marshal() []byte {
	b := make([]byte, 0, 256+len(f.Book)+len(f.IDs)+len(f.Hashes))
	b = append(b, "{\n"...)
	for i, kv := range []struct {
		key string
		str *string
		num int
	}{{"format", &f.Format, 0}, {"version", nil, f.Version}, {"book", &f.Book, 0}, {"bytes", nil, f.Bytes},
		{"sha256", &f.SHA256, 0}, {"items", nil, f.Items}, {"nextId", nil, f.NextID}, {"ids", &f.IDs, 0},
		{"hashes", &f.Hashes, 0}} {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(append(append(b, ` "`...), kv.key...), `": `...)
		if kv.str != nil {
			b = appendJSONString(b, *kv.str)
		} else {
			b = strconv.AppendInt(b, int64(kv.num), 10)
		}
	}
	return append(b, "\n}"...)
}

// appendJSONString appends s as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7E || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// writeStateFile writes one file of the state directory atomically
// (bookcache.WriteFile: never in a folder marked read-only).
func writeStateFile(path string, b []byte) error { return bookcache.WriteFile(path, b) }

// MakeStateDir creates the directory name inside a book's state directory
// (for records of other packages, such as evaluation results) under the
// rule of every state file: never in a folder marked read-only.
func MakeStateDir(book, name string) (string, error) {
	if err := bookcache.MakeDir(StateDir(book)); err != nil {
		return "", err
	}
	dir := filepath.Join(StateDir(book), name)
	return dir, os.MkdirAll(dir, 0o755)
}

// IDOrigin says where the item IDs of an opened book file came from.
type IDOrigin string

// ID origins.
const (
	// IDsRecorded: the state file described the file exactly.
	IDsRecorded IDOrigin = "recorded"
	// IDsCarried: the file changed since aite last recorded it (another
	// program edited it); unchanged items kept their IDs, the others got
	// new ones.
	IDsCarried IDOrigin = "carried"
	// IDsNew: there was no usable record; the items are numbered 1..N.
	IDsNew IDOrigin = "new"
)

// adopt gives a freshly parsed document the IDs its file's record implies
// and returns where they came from and how many items got IDs they did not
// have in the record. sha is the SHA-256 of the document's source in hex
// (computed when "").
func adopt(d *document.Document, r *idRecord, sha string) (IDOrigin, int) {
	return adoptWith(d, r, sha, nil)
}

// adoptWith is adopt given the item hashes of d (nil: computed when
// carrying the IDs over needs them).
func adoptWith(d *document.Document, r *idRecord, sha string, hashes []uint64) (IDOrigin, int) {
	if r == nil {
		renumber(d)
		return IDsNew, d.Len()
	}
	if sha == "" {
		sha = digest(d.Source())
	}
	if r.matches(d.Source(), sha) && d.RestoreIDs(r.ids, r.next) == nil {
		return IDsRecorded, 0
	}
	if hashes == nil {
		hashes = d.ItemHashes()
	}
	ids, next := document.CarryIDs(r.ids, r.hashes, hashes, r.next)
	if err := d.RestoreIDs(ids, next); err != nil {
		return IDsNew, d.Len() // cannot happen: CarryIDs gives unique IDs below next
	}
	fresh := 0
	for _, id := range ids {
		if id >= r.next {
			fresh++
		}
	}
	return IDsCarried, fresh
}

// renumber gives the items of a document that came with IDs (from a cache
// whose state is gone) the IDs 1..N, as a fresh parse has them.
func renumber(d *document.Document) {
	ids, next := d.ItemIDs()
	fresh := next == len(ids)+1
	for i, id := range ids {
		fresh = fresh && id == i+1
		ids[i] = i + 1
	}
	if !fresh {
		_ = d.RestoreIDs(ids, len(ids)+1) // 1..N always fit
	}
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
