package store

import (
	"fmt"
	"slices"
	"strings"
)

// A document is stored as a snapshot and a journal. The snapshot is its
// text, item IDs and next item ID at some revision; each later edit is a
// row with the change it made (DocumentEdit.Splice of the text and
// DocumentEdit.IDs of the item IDs), so an edit writes what it changed,
// not the whole document. GetDocument replays the edits after the
// snapshot (Replay). Every backend writes a new snapshot (the content the
// edit leaves, DocumentContent) exactly when SnapshotDue says so: one rule,
// kept here, bounding what a read replays.

// IDSplice is the change an edit made to a document's item IDs: the Old
// IDs from index At on were replaced by New, and Next is the document's
// next item ID after the edit.
type IDSplice struct {
	At, Old int
	New     []int
	Next    int
}

// The bounds of a journal since its snapshot (see SnapshotDue).
const (
	// SnapshotEdits is the most edits replayed after a snapshot.
	SnapshotEdits = 200
	// SnapshotBytes is the most bytes of changes (the old and new bytes of
	// the edits' text splices) replayed after a snapshot.
	SnapshotBytes = 4 << 20
)

// Replayable reports whether e records its change fully: the splice of the
// text and of the item IDs.
func Replayable(e DocumentEdit) bool { return e.Splice != nil && e.IDs != nil }

// ChangeBytes is the size of e's text change (its old and new bytes): what
// a replay of it holds.
func ChangeBytes(e DocumentEdit) int {
	if e.Splice == nil {
		return 0
	}
	return len(e.Splice.Old) + len(e.Splice.New)
}

// SnapshotDue reports whether edit e must be stored with the content it
// leaves as the document's new snapshot. The document's snapshot was
// stored with next item ID snapNext (0: its item IDs are not recorded),
// and its journal since then holds pending edits of pendingBytes
// (ChangeBytes). A snapshot is due when e cannot be replayed (Replayable)
// or replayed on the snapshot (no item IDs to apply its IDs to), or when
// the journal since the snapshot would exceed SnapshotEdits edits or
// SnapshotBytes bytes.
func SnapshotDue(snapNext, pending, pendingBytes int, e DocumentEdit) bool {
	return !Replayable(e) || snapNext == 0 || pending+1 > SnapshotEdits || pendingBytes+ChangeBytes(e) > SnapshotBytes
}

// Replay applies the changes of edits (ascending by revision, each
// Replayable) to a snapshot (its text, item IDs and next item ID, which
// must be recorded when there are edits) and returns the document's
// content after the last. The text is built once, whatever the number of
// edits. An edit whose change does not fit the content before it gives an
// error wrapping ErrInvalid.
func Replay(snap DocumentContent, edits []DocumentEdit) (DocumentContent, error) {
	if len(edits) == 0 {
		return snap, nil
	}
	if snap.NextItemID == 0 {
		return DocumentContent{}, fmt.Errorf("%w: document %q: a snapshot without item IDs has edits to replay", ErrInvalid, edits[0].DocumentID)
	}
	p := pieces{{s: snap.Markdown}}
	size, ids, next := len(snap.Markdown), slices.Clone(snap.ItemIDs), snap.NextItemID
	for _, e := range edits {
		if !Replayable(e) {
			return DocumentContent{}, fmt.Errorf("%w: document %q revision %d records no change to replay", ErrInvalid, e.DocumentID, e.Revision)
		}
		sp, is := e.Splice, e.IDs
		if sp.At < 0 || sp.At+len(sp.Old) > size || !p.holds(sp.At, sp.Old) {
			return DocumentContent{}, fmt.Errorf("%w: document %q revision %d: its text change does not fit the text", ErrInvalid, e.DocumentID, e.Revision)
		}
		if is.At < 0 || is.Old < 0 || is.At+is.Old > len(ids) || is.Next < next {
			return DocumentContent{}, fmt.Errorf("%w: document %q revision %d: its item ID change does not fit the IDs", ErrInvalid, e.DocumentID, e.Revision)
		}
		p = p.splice(sp.At, len(sp.Old), sp.New)
		size += len(sp.New) - len(sp.Old)
		ids = slices.Replace(ids, is.At, is.At+is.Old, is.New...)
		next = is.Next
	}
	return DocumentContent{Markdown: p.String(), ItemCount: len(ids), ItemIDs: ids, NextItemID: next}, nil
}

// pieces is a text as a list of pieces, which a splice cuts and joins
// without copying the text.
type pieces []piece

type piece struct{ s string }

// splice replaces n bytes at offset at by s.
func (p pieces) splice(at, n int, s string) pieces {
	out := make(pieces, 0, len(p)+2)
	off := 0
	inserted := false
	for _, q := range p {
		start, end := off, off+len(q.s)
		off = end
		// keep the part of q before at and the part after at+n
		if end <= at || start >= at+n {
			if start >= at+n && !inserted {
				out = append(out, piece{s})
				inserted = true
			}
			out = append(out, q)
			continue
		}
		if start < at {
			out = append(out, piece{q.s[:at-start]})
		}
		if !inserted {
			out = append(out, piece{s})
			inserted = true
		}
		if end > at+n {
			out = append(out, piece{q.s[at+n-start:]})
		}
	}
	if !inserted {
		out = append(out, piece{s})
	}
	return slices.DeleteFunc(out, func(q piece) bool { return q.s == "" })
}

// holds reports whether the bytes at offset at are s.
func (p pieces) holds(at int, s string) bool {
	off := 0
	for _, q := range p {
		if len(s) == 0 {
			return true
		}
		start, end := off, off+len(q.s)
		off = end
		if end <= at {
			continue
		}
		from := max(at, start) - start
		k := min(len(q.s)-from, len(s))
		if q.s[from:from+k] != s[:k] {
			return false
		}
		s, at = s[k:], at+k
	}
	return len(s) == 0
}

// String joins the pieces.
func (p pieces) String() string {
	var b strings.Builder
	n := 0
	for _, q := range p {
		n += len(q.s)
	}
	b.Grow(n)
	for _, q := range p {
		b.WriteString(q.s)
	}
	return b.String()
}

// Snapshot describes a document's snapshot as a backend keeps it beside the
// snapshot's content: the revision it holds, its next item ID (0: item IDs
// not recorded) and the ChangeBytes of the edits journaled since.
type Snapshot struct {
	Revision, NextItemID, PendingBytes int
}

// ApplyEdit checks edit e of document d (as stored: its current revision,
// item count and size) whose snapshot is snap, with the content c it
// leaves, and returns what the backend stores: the document after it
// (without its text and item IDs, as every ApplyDocumentEdit returns it),
// its snapshot after it, and, when a new snapshot is due (SnapshotDue), its
// content (nil when the edit row alone records the edit). Errors wrap
// ErrInvalid or ErrConflict; c.Later is called only for a snapshot.
func ApplyEdit(d Document, snap Snapshot, c DocumentContent, e DocumentEdit) (Document, Snapshot, *DocumentContent, error) {
	docID := d.ID
	switch {
	case e.DocumentID != "" && e.DocumentID != docID:
		return d, snap, nil, fmt.Errorf("%w: edit names document %q, applied to %q", ErrInvalid, e.DocumentID, docID)
	case e.Op == "":
		return d, snap, nil, fmt.Errorf("%w: document %q edit: empty op", ErrInvalid, docID)
	}
	if c.Later == nil {
		if err := validateContent(docID, c); err != nil {
			return d, snap, nil, err
		}
	}
	if e.Revision != d.Revision+1 {
		return d, snap, nil, fmt.Errorf("%w: document %q is at revision %d, the edit claims revision %d", ErrConflict, docID, d.Revision, e.Revision)
	}
	if err := validateChange(d, e); err != nil {
		return d, snap, nil, err
	}
	d.Revision, d.UpdatedAt = e.Revision, StoredTime(e.At)
	d.Markdown, d.ItemIDs, d.NextItemID = "", nil, 0
	if SnapshotDue(snap.NextItemID, d.Revision-1-snap.Revision, snap.PendingBytes, e) {
		full := c.Now()
		if c.Later != nil {
			if err := validateContent(docID, full); err != nil {
				return d, snap, nil, err
			}
		}
		d.ItemCount, d.SizeBytes = full.ItemCount, len(full.Markdown)
		full.ItemIDs = StoredIDs(full.ItemIDs)
		return d, Snapshot{Revision: e.Revision, NextItemID: full.NextItemID}, &full, nil
	}
	d.ItemCount += len(e.IDs.New) - e.IDs.Old
	d.SizeBytes += len(e.Splice.New) - len(e.Splice.Old)
	snap.PendingBytes += ChangeBytes(e)
	return d, snap, nil, nil
}

// validateContent checks the content an edit leaves.
func validateContent(docID string, c DocumentContent) error {
	if c.ItemCount < 0 {
		return fmt.Errorf("%w: document %q edit: negative item count", ErrInvalid, docID)
	}
	return ValidateItemIDs(docID, c.ItemCount, c.ItemIDs, c.NextItemID)
}

// validateChange checks the changes e records against document d before it.
func validateChange(d Document, e DocumentEdit) error {
	if sp := e.Splice; sp != nil && (sp.At < 0 || sp.At+len(sp.Old) > d.SizeBytes) {
		return fmt.Errorf("%w: document %q edit: its text change (%d bytes at %d) lies outside the text of %d bytes",
			ErrInvalid, d.ID, len(sp.Old), sp.At, d.SizeBytes)
	}
	is := e.IDs
	if is == nil {
		return nil
	}
	if is.At < 0 || is.Old < 0 || is.At+is.Old > d.ItemCount || is.Next < 1 {
		return fmt.Errorf("%w: document %q edit: its item ID change (%d at %d, next %d) does not fit %d items",
			ErrInvalid, d.ID, is.Old, is.At, is.Next, d.ItemCount)
	}
	seen := make(map[int]bool, len(is.New))
	for _, id := range is.New {
		if id < 1 || id >= is.Next || seen[id] {
			return fmt.Errorf("%w: document %q edit: item id %d repeated or outside 1..%d", ErrInvalid, d.ID, id, is.Next-1)
		}
		seen[id] = true
	}
	return nil
}

// Current returns document d (its summary as stored) with the content of
// its current revision: its snapshot's content snap with the edits since
// (ascending by revision) replayed. A journal that does not replay to the
// stored item count and size gives an error wrapping ErrInvalid.
func Current(d Document, snap DocumentContent, edits []DocumentEdit) (Document, error) {
	c, err := Replay(snap, edits)
	if err != nil {
		return Document{}, err
	}
	if len(edits) > 0 && (c.ItemCount != d.ItemCount || len(c.Markdown) != d.SizeBytes) {
		return Document{}, fmt.Errorf("%w: document %q: its journal replays to %d items and %d bytes, stored %d and %d",
			ErrInvalid, d.ID, c.ItemCount, len(c.Markdown), d.ItemCount, d.SizeBytes)
	}
	d.Markdown, d.ItemIDs, d.NextItemID = c.Markdown, StoredIDs(c.ItemIDs), c.NextItemID
	return d, nil
}
