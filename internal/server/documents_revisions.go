package server

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aitexteditor/aite/internal/store"
	"github.com/aitexteditor/aite/internal/textdiff"
)

// Revisions [EXT]: every edit stores the byte splice it made to the text
// (store.Splice), so the text of any earlier revision is the current text
// with the splices of the later edits undone, newest first. Restoring a
// revision is itself an edit (op "revert") that records its own splice,
// so it can be undone the same way.

// The errors of revision requests (each answered with 400).
var (
	// ErrRevision means the revision is not one of the document's.
	ErrRevision = errors.New("no such revision")
	// ErrRevisionUnrecorded means an edit after the revision was stored
	// before edits recorded their splices, so its text cannot be rebuilt.
	ErrRevisionUnrecorded = errors.New("revision cannot be rebuilt")
)

// OpRevert is the op of an edit that restored an earlier revision.
const OpRevert = "revert"

// spliceOf returns the change from old to new: the bytes between their
// common prefix and their common suffix.
func spliceOf(old, new string) *store.Splice {
	a, b := []byte(old), []byte(new) // a rare path: the revert, and an edit compared with the stored text
	pre := textdiff.CommonPrefix(a, b)
	suf := textdiff.CommonSuffix(a[pre:], b[pre:])
	return &store.Splice{At: pre, Old: old[pre : len(old)-suf], New: new[pre : len(new)-suf]}
}

// idSpliceOf returns the change from the item IDs old to new (next is the
// next item ID after it): the IDs between their common prefix and suffix.
func idSpliceOf(old, new []int, next int) *store.IDSplice {
	pre := textdiff.CommonPrefix(old, new)
	suf := textdiff.CommonSuffix(old[pre:], new[pre:])
	return &store.IDSplice{At: pre, Old: len(old) - pre - suf, New: slices.Clone(new[pre : len(new)-suf]), Next: next}
}

// unsplice undoes the splices of edits (ascending by revision) on text, the
// text after the last of them, newest first.
func unsplice(text string, edits []store.DocumentEdit) (string, error) {
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		sp := e.Splice
		if sp == nil {
			return "", fmt.Errorf("%w: edit %d was stored before edits recorded their changes", ErrRevisionUnrecorded, e.Revision)
		}
		end := sp.At + len(sp.New)
		if sp.At < 0 || end > len(text) || text[sp.At:end] != sp.New {
			return "", fmt.Errorf("%w: the change of edit %d does not match the text", ErrRevisionUnrecorded, e.Revision)
		}
		text = text[:sp.At] + sp.Old + text[end:]
	}
	return text, nil
}

// textAt returns the text of document id at revision rev, read under its
// lock with the current revision.
func (d *Documents) textAt(ctx context.Context, id string, rev int) (text string, current int, err error) {
	err = d.locked(ctx, id, func(ds *docState) error {
		current = ds.revision
		text, err = d.rebuild(ctx, ds, id, rev)
		return err
	})
	return text, current, err
}

// rebuild returns the text of revision rev of a locked document.
func (d *Documents) rebuild(ctx context.Context, ds *docState, id string, rev int) (string, error) {
	if rev < 0 || rev > ds.revision {
		return "", fmt.Errorf("%w: revision %d (the document is at revision %d)", ErrRevision, rev, ds.revision)
	}
	edits, err := d.st.ListDocumentEdits(ctx, id, rev)
	if err != nil {
		return "", err
	}
	src, err := d.session.Source(id)
	if err != nil {
		return "", err
	}
	return unsplice(string(src), edits)
}

// Revert restores the text of revision rev of document id as its next
// revision: an edit of op OpRevert whose RevertedTo is rev, with Pointer
// the first item of the restored text that differs (or "" when none
// does). Items outside the changed part keep their pointers
// (editor.Session.Reload). Restoring the current revision is refused
// (ErrRevision), as is a revision that cannot be rebuilt
// (ErrRevisionUnrecorded).
func (d *Documents) Revert(ctx context.Context, id string, rev int) (store.Document, error) {
	var out store.Document
	err := d.locked(ctx, id, func(ds *docState) error {
		if rev == ds.revision {
			return fmt.Errorf("%w: the document is already at revision %d", ErrRevision, rev)
		}
		text, err := d.rebuild(ctx, ds, id, rev)
		if err != nil {
			return err
		}
		return d.replaceText(ctx, ds, id, text, rev, &out)
	})
	return out, err
}

// replaceText makes text the next revision of a locked document (an edit
// that restored revision rev).
func (d *Documents) replaceText(ctx context.Context, ds *docState, id, text string, rev int, out *store.Document) error {
	prev := d.content(id)
	if prev.ItemCount < 0 {
		return fmt.Errorf("document %s is not loaded", id)
	}
	if _, err := d.session.Reload(id, []byte(text)); err != nil {
		return err
	}
	now := d.content(id)
	sp := spliceOf(prev.Markdown, text)
	ptr := d.firstItemFrom(id, sp.At)
	var err error
	*out, err = d.st.ApplyDocumentEdit(ctx, id, now, store.DocumentEdit{DocumentID: id, Revision: ds.revision + 1,
		Op: OpRevert, Pointer: ptr, At: d.clock(), Splice: sp, IDs: idSpliceOf(prev.ItemIDs, now.ItemIDs, now.NextItemID),
		RevertedTo: &rev})
	if err != nil {
		if _, rerr := d.session.Reload(id, []byte(prev.Markdown)); rerr != nil {
			ds.loaded = false // reload from the store on next use
		}
		return err
	}
	ds.revision = out.Revision
	return nil
}

// firstItemFrom returns the pointer of the first item of a loaded document
// that ends after byte offset at ("" when none does).
func (d *Documents) firstItemFrom(id string, at int) string {
	it, err := d.session.ItemAfter(id, at)
	if err != nil {
		return ""
	}
	return it.Pointer.String()
}
