package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	docmodel "github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/store"
)

// SavePlan implements store.Plans.
func (s *Store) SavePlan(ctx context.Context, p store.Plan) error {
	if err := store.ValidatePlan(p); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := needChat(ctx, tx, p.ChatID); err != nil {
			return err
		}
		if err := needRun(ctx, tx, p.RunID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO plans (plan_id, chat_id, run_id, tasks, updated_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (plan_id) DO UPDATE SET chat_id = excluded.chat_id, run_id = excluded.run_id,
			tasks = excluded.tasks, updated_at = excluded.updated_at`,
			p.ID, p.ChatID, p.RunID, string(p.Tasks), millis(p.UpdatedAt))
		if err != nil {
			return fmt.Errorf("sqlite: saving plan %q: %w", p.ID, err)
		}
		return nil
	})
}

const planColumns = `plan_id, chat_id, run_id, tasks, updated_at`

// GetPlan implements store.Plans.
func (s *Store) GetPlan(ctx context.Context, id string) (store.Plan, error) {
	return onePlan(s.r.QueryRowContext(ctx, `SELECT `+planColumns+` FROM plans WHERE plan_id = ?`, id), "plan "+quote(id))
}

// LatestPlan implements store.Plans.
func (s *Store) LatestPlan(ctx context.Context, chatID string) (store.Plan, error) {
	return onePlan(s.r.QueryRowContext(ctx, `SELECT `+planColumns+` FROM plans WHERE chat_id = ?
		ORDER BY updated_at DESC, plan_id DESC LIMIT 1`, chatID), "plan of chat "+quote(chatID))
}

func onePlan(row *sql.Row, what string) (store.Plan, error) {
	var p store.Plan
	var tasks string
	var updated int64
	err := row.Scan(&p.ID, &p.ChatID, &p.RunID, &tasks, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Plan{}, fmt.Errorf("%s: %w", what, store.ErrNotFound)
	} else if err != nil {
		return store.Plan{}, fmt.Errorf("sqlite: reading %s: %w", what, err)
	}
	p.Tasks, p.UpdatedAt = []byte(tasks), fromMillis(updated)
	return p, nil
}

// CreateDocument implements store.Documents.
func (s *Store) CreateDocument(ctx context.Context, d store.Document) (store.Document, error) {
	if err := store.ValidateNewDocument(d); err != nil {
		return store.Document{}, err
	}
	d.SizeBytes, d.CreatedAt, d.UpdatedAt = len(d.Markdown), store.StoredTime(d.CreatedAt), store.StoredTime(d.UpdatedAt)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := need(ctx, tx, documentExists, "document", d.ID); err == nil {
			return fmt.Errorf("document %q: %w", d.ID, store.ErrExists)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO documents (document_id, name, markdown, revision, item_count, item_ids,
			next_item_id, size_bytes, created_at, updated_at, owner) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)`,
			d.ID, d.Name, d.Markdown, d.ItemCount, docmodel.FormatIDRuns(d.ItemIDs), d.NextItemID, d.SizeBytes,
			millis(d.CreatedAt), millis(d.UpdatedAt), d.Owner)
		if err != nil {
			return fmt.Errorf("sqlite: creating document %q: %w", d.ID, err)
		}
		return nil
	})
	if err != nil {
		return store.Document{}, err
	}
	d.ItemIDs = store.StoredIDs(d.ItemIDs)
	return d, nil
}

// GetDocument implements store.Documents.
func (s *Store) GetDocument(ctx context.Context, id string) (store.Document, error) {
	return document(ctx, s.r, id)
}

// rowQuerier is a *sql.DB or *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func document(ctx context.Context, q rowQuerier, id string) (store.Document, error) {
	d, err := scanDocument(q.QueryRowContext(ctx, `SELECT document_id, name, markdown, revision, item_count, item_ids,
		next_item_id, size_bytes, created_at, updated_at, owner FROM documents WHERE document_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Document{}, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.Document{}, fmt.Errorf("sqlite: reading document %q: %w", id, err)
	}
	return d, nil
}

// ListDocuments implements store.Documents.
func (s *Store) ListDocuments(ctx context.Context) ([]store.Document, error) {
	return queryAll(ctx, s.r, scanDocument, `SELECT document_id, name, '', revision, item_count, '', 0, size_bytes,
		created_at, updated_at, owner FROM documents ORDER BY updated_at DESC, document_id`)
}

// scanDocument reads the columns document_id, name, markdown, revision, item_count,
// item_ids, next_item_id, size_bytes, created_at, updated_at, owner.
func scanDocument(sc scanner) (store.Document, error) {
	var d store.Document
	var ids string
	var created, updated int64
	err := sc.Scan(&d.ID, &d.Name, &d.Markdown, &d.Revision, &d.ItemCount, &ids, &d.NextItemID, &d.SizeBytes,
		&created, &updated, &d.Owner)
	if err != nil {
		return store.Document{}, err
	}
	d.CreatedAt, d.UpdatedAt = fromMillis(created), fromMillis(updated)
	if d.NextItemID > 0 {
		if d.ItemIDs, err = docmodel.ParseIDRuns(ids, d.ItemCount); err != nil {
			return store.Document{}, fmt.Errorf("document %q: %w", d.ID, err)
		}
	}
	return d, nil
}

// ApplyDocumentEdit implements store.Documents.
func (s *Store) ApplyDocumentEdit(ctx context.Context, docID string, c store.DocumentContent, e store.DocumentEdit) (store.Document, error) {
	var d store.Document
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if d, err = document(ctx, tx, docID); err != nil {
			return err
		}
		if err := store.ValidateEdit(docID, d.Revision, c, e); err != nil {
			return err
		}
		at := millis(e.At)
		_, err = tx.ExecContext(ctx, `UPDATE documents SET markdown = ?, revision = ?, item_count = ?, item_ids = ?,
			next_item_id = ?, size_bytes = ?, updated_at = ? WHERE document_id = ?`,
			c.Markdown, e.Revision, c.ItemCount, docmodel.FormatIDRuns(c.ItemIDs), c.NextItemID, len(c.Markdown), at, docID)
		if err != nil {
			return fmt.Errorf("sqlite: updating document %q: %w", docID, err)
		}
		var spAt, spOld, spNew, reverted any // NULL: not recorded
		if sp := e.Splice; sp != nil {
			spAt, spOld, spNew = sp.At, sp.Old, sp.New
		}
		if e.RevertedTo != nil {
			reverted = *e.RevertedTo
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO document_edits (document_id, revision, run_id, tool_id, op, pointer,
			new_pointer, before, after, at, splice_at, splice_old, splice_new, reverted_to)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			docID, e.Revision, e.RunID, e.ToolID, e.Op, e.Pointer, e.NewPointer, e.Before, e.After, at, spAt, spOld, spNew, reverted)
		if err != nil {
			return fmt.Errorf("sqlite: journaling the edit of document %q: %w", docID, err)
		}
		d = store.Edited(d, c, e)
		return nil
	})
	if err != nil {
		return store.Document{}, err
	}
	return d, nil
}

// ListDocumentEdits implements store.Documents.
func (s *Store) ListDocumentEdits(ctx context.Context, docID string, afterRevision int) ([]store.DocumentEdit, error) {
	var out []store.DocumentEdit
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := need(ctx, tx, documentExists, "document", docID); err != nil {
			return err
		}
		var err error
		out, err = queryAll(ctx, tx, func(sc scanner) (store.DocumentEdit, error) {
			var e store.DocumentEdit
			var at int64
			var spAt, reverted sql.NullInt64
			var spOld, spNew sql.NullString
			err := sc.Scan(&e.DocumentID, &e.Revision, &e.RunID, &e.ToolID, &e.Op, &e.Pointer, &e.NewPointer,
				&e.Before, &e.After, &at, &spAt, &spOld, &spNew, &reverted)
			e.At = fromMillis(at)
			if spAt.Valid {
				e.Splice = &store.Splice{At: int(spAt.Int64), Old: spOld.String, New: spNew.String}
			}
			if reverted.Valid {
				r := int(reverted.Int64)
				e.RevertedTo = &r
			}
			return e, err
		}, `SELECT document_id, revision, run_id, tool_id, op, pointer, new_pointer, before, after, at,
			splice_at, splice_old, splice_new, reverted_to FROM document_edits WHERE document_id = ? AND revision > ? ORDER BY revision`, docID, afterRevision)
		return err
	})
	return out, err
}

// SaveTask implements store.Tasks.
func (s *Store) SaveTask(ctx context.Context, id string, body json.RawMessage, at time.Time) error {
	if err := store.ValidateTask(id, body); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO task_states (task_id, state, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (task_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
			id, string(body), millis(at))
		if err != nil {
			return fmt.Errorf("sqlite: saving task %q: %w", id, err)
		}
		return nil
	})
}

// LoadTask implements store.Tasks.
func (s *Store) LoadTask(ctx context.Context, id string) (store.TaskState, error) {
	t := store.TaskState{ID: id}
	var body string
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT state, updated_at FROM task_states WHERE task_id = ?`, id).Scan(&body, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return store.TaskState{}, fmt.Errorf("task %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.TaskState{}, fmt.Errorf("sqlite: reading task %q: %w", id, err)
	}
	t.Body, t.UpdatedAt = []byte(body), fromMillis(at)
	return t, nil
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// PutDocumentData implements store.DocumentData.
func (s *Store) PutDocumentData(ctx context.Context, docID, name string, data []byte, at time.Time) error {
	if err := store.ValidateDocumentData(docID, name); err != nil {
		return err
	}
	if data == nil {
		data = []byte{}
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := need(ctx, tx, documentExists, "document", docID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO document_data (document_id, name, data, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (document_id, name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
			docID, name, data, millis(at))
		if err != nil {
			return fmt.Errorf("sqlite: saving %s of document %q: %w", name, docID, err)
		}
		return nil
	})
}

// GetDocumentData implements store.DocumentData.
func (s *Store) GetDocumentData(ctx context.Context, docID, name string) (store.DocumentDatum, error) {
	d := store.DocumentDatum{DocumentID: docID, Name: name}
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT data, updated_at FROM document_data WHERE document_id = ? AND name = ?`,
		docID, name).Scan(&d.Data, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return store.DocumentDatum{}, fmt.Errorf("%s of document %q: %w", name, docID, store.ErrNotFound)
	} else if err != nil {
		return store.DocumentDatum{}, fmt.Errorf("sqlite: reading %s of document %q: %w", name, docID, err)
	}
	d.UpdatedAt = fromMillis(at)
	return d, nil
}
