package editor

import (
	"fmt"

	"github.com/aitexteditor/aite/internal/document"
)

// Edit applies one domain operation. A refused edit changes nothing and its
// error says why and what to do instead.
func (s *Session) Edit(id string, op document.Op, ptr, markdown string) (document.EditResult, error) {
	var res document.EditResult
	err := s.with(id, func(b *book) error {
		var err error
		b.awaitCache()
		b.readyIndex()
		switch op {
		case document.OpReplace:
			res, err = b.doc.ReplaceText(ptr, markdown)
		case document.OpInsertBefore:
			res, err = b.doc.InsertBefore(ptr, markdown)
		case document.OpInsertAfter:
			res, err = b.doc.InsertAfter(ptr, markdown)
		case document.OpDelete:
			res, err = b.doc.Delete(ptr)
		case document.OpAppend:
			res, err = b.doc.Append(markdown) // ptr is unused
		default:
			return fmt.Errorf("%w: unknown operation %q (replace, insert_before, insert_after, delete, append)", document.ErrUnsupported, op)
		}
		if err == nil {
			b.reindex(res.Pointer.ID)
		}
		return err
	})
	return res, err
}

// PreviewEdit tells what Edit would do without doing it (see
// document.Document.Preview): the same refusals, the Markdown before and
// after. The book does not change.
func (s *Session) PreviewEdit(id string, op document.Op, ptr, markdown string) (document.EditResult, error) {
	var res document.EditResult
	err := s.with(id, func(b *book) error {
		var err error
		res, err = b.doc.Preview(op, ptr, markdown)
		return err
	})
	return res, err
}

// readyIndex readies a current index for an edit: one decoded from the
// cache turns into an ordinary one while the document still holds the
// texts it was made of (search.Index.Update).
func (b *book) readyIndex() {
	if b.index != nil && b.index.Version() == b.doc.Version() {
		b.index.Update(b.doc)
	}
}

// reindex brings an index that was current before one edit up to date.
func (b *book) reindex(ids ...int) {
	if b.index != nil && b.index.Version() == b.doc.Version()-1 {
		b.index.Update(b.doc, ids...)
	}
}

// Undo reverts the last n edits of the book, newest first, and returns
// them. It stops at the first failure, reporting what was undone.
func (s *Session) Undo(id string, n int) ([]document.JournalEntry, error) {
	var done []document.JournalEntry
	err := s.with(id, func(b *book) error {
		if n < 1 {
			return fmt.Errorf("%w: undo needs a count of at least 1 (got %d)", document.ErrRange, n)
		}
		if have := len(b.doc.Journal()); n > have {
			return fmt.Errorf("%w: only %d edits to undo (asked for %d)", document.ErrNothingToUndo, have, n)
		}
		for i := 0; i < n; i++ {
			b.readyIndex()
			e, err := b.doc.Undo()
			if err != nil {
				return err
			}
			b.reindex(e.ItemID)
			done = append(done, e)
		}
		return nil
	})
	return done, err
}

// Journal returns the book's applied edits, oldest first.
func (s *Session) Journal(id string) ([]document.JournalEntry, error) {
	var out []document.JournalEntry
	err := s.with(id, func(b *book) error {
		out = append(out, b.doc.Journal()...)
		return nil
	})
	return out, err
}
