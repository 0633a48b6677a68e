package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/aitexteditor/aite/internal/store"
)

// SavePlan implements store.Plans.
func (s *Store) SavePlan(ctx context.Context, p store.Plan) error {
	if err := store.ValidatePlan(p); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needChat(ctx, p.ChatID); err != nil {
		return err
	}
	if err := s.needRun(ctx, p.RunID); err != nil {
		return err
	}
	p.Tasks, p.UpdatedAt = clone(p.Tasks), ms(p.UpdatedAt)
	s.plans[p.ID] = p
	return nil
}

// GetPlan implements store.Plans.
func (s *Store) GetPlan(ctx context.Context, id string) (store.Plan, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return store.Plan{}, err
	}
	p, ok := s.plans[id]
	if !ok {
		return store.Plan{}, fmt.Errorf("plan %q: %w", id, store.ErrNotFound)
	}
	p.Tasks = clone(p.Tasks)
	return p, nil
}

// LatestPlan implements store.Plans.
func (s *Store) LatestPlan(ctx context.Context, chatID string) (store.Plan, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return store.Plan{}, err
	}
	var best *store.Plan
	for _, p := range s.plans {
		if p.ChatID != chatID {
			continue
		}
		if best == nil || cmp.Or(p.UpdatedAt.Compare(best.UpdatedAt), cmp.Compare(p.ID, best.ID)) > 0 {
			best = &p
		}
	}
	if best == nil {
		return store.Plan{}, fmt.Errorf("plan of chat %q: %w", chatID, store.ErrNotFound)
	}
	p := *best
	p.Tasks = clone(p.Tasks)
	return p, nil
}

// snapshot is a document's snapshot (store/journal.go).
type snapshot struct {
	store.Snapshot
	content store.DocumentContent
}

// CreateDocument implements store.Documents.
func (s *Store) CreateDocument(ctx context.Context, d store.Document) (store.Document, error) {
	if err := store.ValidateNewDocument(d); err != nil {
		return store.Document{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return store.Document{}, err
	}
	if _, ok := s.docs[d.ID]; ok {
		return store.Document{}, fmt.Errorf("document %q: %w", d.ID, store.ErrExists)
	}
	d.SizeBytes, d.CreatedAt, d.UpdatedAt = len(d.Markdown), ms(d.CreatedAt), ms(d.UpdatedAt)
	d.ItemIDs = store.StoredIDs(d.ItemIDs)
	s.snaps[d.ID] = snapshot{Snapshot: store.Snapshot{NextItemID: d.NextItemID},
		content: store.DocumentContent{Markdown: d.Markdown, ItemCount: d.ItemCount, ItemIDs: d.ItemIDs, NextItemID: d.NextItemID}}
	sum := d
	sum.Markdown, sum.ItemIDs, sum.NextItemID = "", nil, 0
	s.docs[d.ID] = sum
	d.ItemIDs = store.StoredIDs(d.ItemIDs)
	return d, nil
}

// GetDocument implements store.Documents.
func (s *Store) GetDocument(ctx context.Context, id string) (store.Document, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, err := s.document(ctx, id)
	if err != nil {
		return store.Document{}, err
	}
	snap := s.snaps[id]
	var since []store.DocumentEdit
	for _, e := range s.edits[id] {
		if e.Revision > snap.Revision {
			since = append(since, e)
		}
	}
	return store.Current(d, snap.content, since)
}

func (s *Store) document(ctx context.Context, id string) (store.Document, error) {
	if err := ctx.Err(); err != nil {
		return store.Document{}, err
	}
	d, ok := s.docs[id]
	if !ok {
		return store.Document{}, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	}
	return d, nil
}

// ListDocuments implements store.Documents.
func (s *Store) ListDocuments(ctx context.Context) ([]store.Document, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]store.Document, 0, len(s.docs))
	for _, d := range s.docs {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b store.Document) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// ApplyDocumentEdit implements store.Documents.
func (s *Store) ApplyDocumentEdit(ctx context.Context, docID string, c store.DocumentContent, e store.DocumentEdit) (store.Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.document(ctx, docID)
	if err != nil {
		return store.Document{}, err
	}
	snap := s.snaps[docID]
	d, info, full, err := store.ApplyEdit(d, snap.Snapshot, c, e)
	if err != nil {
		return store.Document{}, err
	}
	e.DocumentID, e.At = docID, ms(e.At)
	s.edits[docID] = append(s.edits[docID], cloneEdit(e))
	snap.Snapshot = info
	if full != nil {
		snap.content = *full
	}
	s.snaps[docID], s.docs[docID] = snap, d
	return d, nil
}

// ListDocumentEdits implements store.Documents.
func (s *Store) ListDocumentEdits(ctx context.Context, docID string, afterRevision int) ([]store.DocumentEdit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, err := s.document(ctx, docID); err != nil {
		return nil, err
	}
	out := []store.DocumentEdit{}
	for _, e := range s.edits[docID] {
		if e.Revision > afterRevision {
			out = append(out, cloneEdit(e))
		}
	}
	return out, nil
}

// SaveTask implements store.Tasks.
func (s *Store) SaveTask(ctx context.Context, id string, body json.RawMessage, at time.Time) error {
	if err := store.ValidateTask(id, body); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	s.tasks[id] = store.TaskState{ID: id, Body: clone(body), UpdatedAt: ms(at)}
	return nil
}

// LoadTask implements store.Tasks.
func (s *Store) LoadTask(ctx context.Context, id string) (store.TaskState, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return store.TaskState{}, err
	}
	t, ok := s.tasks[id]
	if !ok {
		return store.TaskState{}, fmt.Errorf("task %q: %w", id, store.ErrNotFound)
	}
	t.Body = clone(t.Body)
	return t, nil
}

// cloneEdit copies the pointed-to parts of an edit, so callers never share
// them with the store.
func cloneEdit(e store.DocumentEdit) store.DocumentEdit {
	if e.Splice != nil {
		sp := *e.Splice
		e.Splice = &sp
	}
	if e.IDs != nil {
		is := *e.IDs
		is.New = append([]int{}, is.New...) // never nil, as every backend reads it back
		e.IDs = &is
	}
	if e.RevertedTo != nil {
		r := *e.RevertedTo
		e.RevertedTo = &r
	}
	return e
}

// PutDocumentData implements store.DocumentData.
func (s *Store) PutDocumentData(ctx context.Context, docID, name string, data []byte, at time.Time) error {
	if err := store.ValidateDocumentData(docID, name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, ok := s.docs[docID]; !ok {
		return fmt.Errorf("document %q: %w", docID, store.ErrNotFound)
	}
	s.data[[2]string{docID, name}] = store.DocumentDatum{DocumentID: docID, Name: name, Data: clone(data), UpdatedAt: ms(at)}
	return nil
}

// GetDocumentData implements store.DocumentData.
func (s *Store) GetDocumentData(ctx context.Context, docID, name string) (store.DocumentDatum, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return store.DocumentDatum{}, err
	}
	d, ok := s.data[[2]string{docID, name}]
	if !ok {
		return store.DocumentDatum{}, fmt.Errorf("%s of document %q: %w", name, docID, store.ErrNotFound)
	}
	d.Data = clone(d.Data)
	return d, nil
}
