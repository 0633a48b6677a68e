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

	"github.com/aitexteditor/aite/internal/atomicfile"
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
func StateDir(book string) string {
	if p, err := filepath.EvalSymlinks(book); err == nil {
		book = p
	}
	return filepath.Join(filepath.Dir(book), "."+filepath.Base(book)+".aite")
}

// StatePath is the file that records a book file's item IDs.
func StatePath(book string) string { return filepath.Join(StateDir(book), "state.json") }

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
}

// recordOf describes a document as it is (its source must be the file's).
func recordOf(d *document.Document) *idRecord {
	ids, next := d.ItemIDs()
	return &idRecord{sha: digest(d.Source()), size: len(d.Source()), ids: ids, next: next, hashes: d.ItemHashes()}
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
	return f.record()
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
// directory when needed.
func writeRecord(book string, r *idRecord) error {
	raw := make([]byte, 8*len(r.hashes))
	for i, h := range r.hashes {
		binary.LittleEndian.PutUint64(raw[8*i:], h)
	}
	f := stateFile{Format: StateFormat, Version: StateVersion, Book: filepath.Base(book), Bytes: r.size,
		SHA256: r.sha, Items: len(r.ids), NextID: r.next, IDs: document.FormatIDRuns(r.ids),
		Hashes: base64.StdEncoding.EncodeToString(raw)}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	return writeStateFile(StatePath(book), append(b, '\n'))
}

// writeStateFile writes one file of the state directory atomically
// (see makeStateDir).
func writeStateFile(path string, b []byte) error {
	if err := makeStateDir(filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.Write(path, b, atomicfile.Options{Perm: 0o644})
}

// makeStateDir creates a book's state directory, but not beside a book
// whose directory has no write permission bit at all (a folder marked
// read-only, also for root, who could write there anyway).
func makeStateDir(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if fi, err := os.Stat(filepath.Dir(dir)); err == nil && fi.Mode().Perm()&0o222 == 0 {
			return fmt.Errorf("the folder %s is read-only", filepath.Dir(dir))
		}
	}
	return os.MkdirAll(dir, 0o755)
}

// MakeStateDir creates the directory name inside a book's state directory
// (for records of other packages, such as evaluation results) under the
// rule of every state file: never in a folder marked read-only.
func MakeStateDir(book, name string) (string, error) {
	if err := makeStateDir(StateDir(book)); err != nil {
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
// have in the record.
func adopt(d *document.Document, r *idRecord) (IDOrigin, int) {
	if r == nil {
		return IDsNew, d.Len()
	}
	sha := digest(d.Source())
	if r.matches(d.Source(), sha) && d.RestoreIDs(r.ids, r.next) == nil {
		return IDsRecorded, 0
	}
	ids, next := document.CarryIDs(r.ids, r.hashes, d.ItemHashes(), r.next)
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

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
