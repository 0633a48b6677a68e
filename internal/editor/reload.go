package editor

import (
	"bytes"
	"fmt"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
	"github.com/aitexteditor/aite/internal/textdiff"
)

// Reload replaces the text of book id with src, as when an earlier version
// is restored, keeping pointers stable where the text did not change: an
// item of the new text keeps the ID of the old item with the same kind and
// the same bytes at the same place within the unchanged start of the text,
// or at the same distance from the end within its unchanged end. Every
// other item gets a new ID above all IDs used so far, so an old pointer into
// the changed part fails as deleted instead of naming another item. The
// cursors, target sets and the undo journal of the book are dropped, as on
// Load; the book keeps its path.
func (s *Session) Reload(id string, src []byte) (BookInfo, error) {
	src = bytes.Clone(src)
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.books[id]
	if b == nil {
		return BookInfo{}, s.unknown(id)
	}
	b.awaitCache() // the write reads the document this replaces
	d := markdown.Parse(src)
	ids, next := keptIDs(b.doc, d)
	if err := d.RestoreIDs(ids, next); err != nil {
		return BookInfo{}, fmt.Errorf("book %q: %w", id, err) // cannot happen: keptIDs gives valid ids
	}
	nb := bookOf(id, b.path, src, d)
	nb.saved, nb.savedVer = b.saved, -1 // unsaved: the text differs from the file
	s.books[id] = nb
	return nb.info(), nil
}

// keptIDs chooses the IDs of the items of nd, the new text of od (see
// Reload).
func keptIDs(od, nd *document.Document) (ids []int, next int) {
	oldSrc, newSrc := od.Source(), nd.Source()
	pre := textdiff.CommonPrefix(oldSrc, newSrc)
	suf := textdiff.CommonSuffix(oldSrc[pre:], newSrc[pre:])
	shift := len(newSrc) - len(oldSrc)
	type key struct {
		start, end int
		kind       document.Kind
	}
	same := map[key]int{} // position in the new text → old id
	for _, it := range od.Items() {
		switch {
		case it.End() <= pre:
			same[key{it.Start(), it.End(), it.Kind}] = it.ID
		case it.Start() >= len(oldSrc)-suf:
			same[key{it.Start() + shift, it.End() + shift, it.Kind}] = it.ID
		}
	}
	_, next = od.ItemIDs()
	used := map[int]bool{}
	ids = make([]int, nd.Len())
	for i, it := range nd.Items() {
		if old, ok := same[key{it.Start(), it.End(), it.Kind}]; ok && !used[old] {
			ids[i], used[old] = old, true
			continue
		}
		ids[i] = next
		next++
	}
	return ids, next
}
