package editor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/textdiff"
)

// A book's source after edits is held in pieces (document.Text): what the
// editor does with the versions of a book — write, hash, diff, journal —
// it does on the pieces, so an edit of a big book never joins it.

// digestText is digest of the bytes of t.
func digestText(t document.Text) string {
	h := sha256.New()
	for _, p := range t.Parts() {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// span is where two versions of a source differ: before[lo:oldEnd] became
// after[lo:newEnd]; the bytes before lo and after the ends are the same.
type span struct{ lo, oldEnd, newEnd int }

// spanOf returns where the book's source differs from the one last read or
// saved, from the document's own record of its edits; the whole source
// when that record does not reach back so far.
func (b *book) spanOf() span {
	if c, ok := b.doc.ChangeSince(b.savedVer); ok {
		return span{c.Text.Start, c.Text.Start + len(c.Text.Old), c.Text.Start + len(c.Text.New)}
	}
	return span{0, b.saved.Len(), b.doc.Size()}
}

// changeOf is change(before, after), given a span that holds every
// difference: it compares only from the span's ends on.
func changeOf(before, after document.Text, sp span) Change {
	if sp.lo == 0 && sp.oldEnd == before.Len() && sp.newEnd == after.Len() {
		return change(before.Bytes(), after.Bytes())
	}
	nb, na := before.Len(), after.Len()
	p := sp.lo
	for p < nb && p < na && before.At(p) == after.At(p) {
		p++
	}
	s := min(nb-sp.oldEnd, nb-p, na-p) // the same bytes after the span
	for s < nb-p && s < na-p && before.At(nb-1-s) == after.At(na-1-s) {
		s++
	}
	return Change{Start: p, Old: append([]byte{}, before.Slice(p, nb-s)...), New: append([]byte{}, after.Slice(p, na-s)...)}
}

// unifiedDiff is textdiff.Unified of two versions of a source that differ
// only inside sp, computed on the lines around the span.
func unifiedDiff(oldName, newName string, before, after document.Text, sp span, context int) string {
	// From the start of the line context+1 lines before the span's line,
	// to the end of the line context+1 lines after its end.
	a := before.LastIndexByte(sp.lo, '\n') + 1
	for range context + 1 {
		if a == 0 {
			break
		}
		a = before.LastIndexByte(a-1, '\n') + 1
	}
	e := sp.oldEnd
	for range context + 2 {
		i := before.IndexByte(e, '\n')
		if i < 0 {
			e = before.Len()
			break
		}
		e = i + 1
	}
	lines := 0 // before a
	for off, p := 0, 0; off < a; p++ {
		piece := before.Parts()[p]
		n := min(len(piece), a-off)
		lines += bytes.Count(piece[:n], []byte{'\n'})
		off += n
	}
	return textdiff.UnifiedPart(oldName, newName, before.Slice(a, e), after.Slice(a, e+sp.newEnd-sp.oldEnd), context, lines)
}

// recordNow is recordOf the book's document as it is now: the hashes of
// the items that no edit since the last read or save replaced are those
// of the record of that version (the hash of every item of a big book
// costs a pass over all its bytes).
func (b *book) recordNow() *idRecord {
	ids, next := b.doc.ItemIDs()
	return &idRecord{sha: digestText(b.doc.SourceText()), size: b.doc.Size(), ids: ids, next: next, hashes: b.hashesNow()}
}

// hashesNow is b.doc.ItemHashes(), from the saved record where it can.
func (b *book) hashesNow() []uint64 {
	c, ok := b.doc.ChangeSince(b.savedVer)
	old := b.rec
	if !ok || old == nil || old.size != b.saved.Len() || c.At+c.Old > len(old.hashes) ||
		len(old.hashes)-c.Old+len(c.IDs) != b.doc.Len() {
		return b.doc.ItemHashes()
	}
	out := make([]uint64, 0, b.doc.Len())
	out = append(out, old.hashes[:c.At]...)
	for i := range c.IDs {
		out = append(out, document.ItemHash(b.doc.MarkdownBytes(b.doc.At(c.At+i))))
	}
	return append(out, old.hashes[c.At+c.Old:]...)
}

// errNotText says that a book's edits made it something CheckText refuses.
var errNotText = errors.New("not a text")

// changedText is CheckText of what the edits since the last read or save
// wrote (the rest of the book passed it when it was read): a cache beside
// a book is only ever written for a text that passes, so an open that
// finds a valid cache need not check the whole book again.
func (b *book) changedText(path string) error {
	if !b.checked { // held in memory: never checked
		return CheckText(path, b.doc.Source())
	}
	sp := b.spanOf()
	return CheckText(path, b.doc.SourceText().Slice(sp.lo, sp.newEnd))
}

// savedDigest is digest of the source as last read or saved: the SHA-256
// its ID record holds (the record is made of that very version when the
// book is read or saved), else computed.
func (b *book) savedDigest() string {
	if b.rec != nil && b.rec.sha != "" && b.rec.size == b.saved.Len() {
		return b.rec.sha
	}
	return digestText(b.saved)
}
