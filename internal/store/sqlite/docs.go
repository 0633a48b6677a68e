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
		_, err := tx.ExecContext(ctx, `INSERT INTO documents (document_id, name, revision, item_count, size_bytes,
			created_at, updated_at, owner) VALUES (?, ?, 0, ?, ?, ?, ?, ?)`,
			d.ID, d.Name, d.ItemCount, d.SizeBytes, millis(d.CreatedAt), millis(d.UpdatedAt), d.Owner)
		if err == nil {
			err = putSnapshot(ctx, tx, d.ID, 0, store.DocumentContent{Markdown: d.Markdown, ItemIDs: d.ItemIDs, NextItemID: d.NextItemID})
		}
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

// GetDocument implements store.Documents: the snapshot with the edits since
// replayed (store.Current), read in one transaction.
func (s *Store) GetDocument(ctx context.Context, id string) (store.Document, error) {
	var d store.Document
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		d, err = document(ctx, tx, id)
		return err
	})
	return d, err
}

// rowQuerier is a *sql.DB or *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// document reads a document's summary and snapshot and replays its journal.
func document(ctx context.Context, tx *sql.Tx, id string) (store.Document, error) {
	d, snap, err := documentRow(ctx, tx, id, true)
	if err != nil || d.Revision == snap.Revision {
		return d, err
	}
	edits, err := documentEdits(ctx, tx, id, snap.Revision)
	if err != nil {
		return store.Document{}, err
	}
	c := store.DocumentContent{Markdown: d.Markdown, ItemCount: len(d.ItemIDs), ItemIDs: d.ItemIDs, NextItemID: d.NextItemID}
	return store.Current(d, c, edits)
}

// documentRow reads a document's row: its summary, with the snapshot's
// text and item IDs when withText (the summary's item count, size and
// revision are the current ones), and the snapshot's description.
func documentRow(ctx context.Context, q rowQuerier, id string, withText bool) (store.Document, store.Snapshot, error) {
	text := "s.markdown, s.item_ids"
	if !withText {
		text = "'', ''"
	}
	var snap store.Snapshot
	var d store.Document
	var ids string
	var created, updated int64
	err := q.QueryRowContext(ctx, `SELECT d.document_id, d.name, `+text+`, d.revision, d.item_count, s.next_item_id,
		d.size_bytes, d.created_at, d.updated_at, d.owner, s.revision, d.pending_bytes
		FROM documents d JOIN document_snapshots s USING (document_id) WHERE d.document_id = ?`, id).Scan(
		&d.ID, &d.Name, &d.Markdown, &ids, &d.Revision, &d.ItemCount, &d.NextItemID, &d.SizeBytes,
		&created, &updated, &d.Owner, &snap.Revision, &snap.PendingBytes)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Document{}, snap, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.Document{}, snap, fmt.Errorf("sqlite: reading document %q: %w", id, err)
	}
	d.CreatedAt, d.UpdatedAt = fromMillis(created), fromMillis(updated)
	snap.NextItemID = d.NextItemID
	if withText && d.NextItemID > 0 {
		d.ItemIDs, err = docmodel.ParseStoredIDs(ids, d.Revision == snap.Revision, d.ItemCount, d.NextItemID)
		if err != nil {
			return store.Document{}, snap, fmt.Errorf("document %q: %w", d.ID, err)
		}
	}
	return d, snap, nil
}

// putSnapshot stores a document's snapshot: its content c at revision rev.
func putSnapshot(ctx context.Context, tx *sql.Tx, id string, rev int, c store.DocumentContent) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO document_snapshots (document_id, revision, markdown, item_ids, next_item_id)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (document_id) DO UPDATE SET revision = excluded.revision,
		markdown = excluded.markdown, item_ids = excluded.item_ids, next_item_id = excluded.next_item_id`,
		id, rev, c.Markdown, docmodel.FormatIDRuns(c.ItemIDs), c.NextItemID)
	return err
}

// ListDocuments implements store.Documents.
func (s *Store) ListDocuments(ctx context.Context) ([]store.Document, error) {
	return queryAll(ctx, s.r, scanDocument, `SELECT document_id, name, revision, item_count, size_bytes,
		created_at, updated_at, owner FROM documents ORDER BY updated_at DESC, document_id`)
}

// scanDocument reads the columns document_id, name, revision, item_count,
// size_bytes, created_at, updated_at, owner: a document without its text
// and item IDs.
func scanDocument(sc scanner) (store.Document, error) {
	var d store.Document
	var created, updated int64
	err := sc.Scan(&d.ID, &d.Name, &d.Revision, &d.ItemCount, &d.SizeBytes, &created, &updated, &d.Owner)
	if err != nil {
		return store.Document{}, err
	}
	d.CreatedAt, d.UpdatedAt = fromMillis(created), fromMillis(updated)
	return d, nil
}

// ApplyDocumentEdit implements store.Documents: the edit's row, and the
// content it leaves as the new snapshot only when one is due
// (store.ApplyEdit).
func (s *Store) ApplyDocumentEdit(ctx context.Context, docID string, c store.DocumentContent, e store.DocumentEdit) (store.Document, error) {
	var d store.Document
	err := s.write(ctx, func(tx *sql.Tx) error {
		d0, snap, err := documentRow(ctx, tx, docID, false)
		if err != nil {
			return err
		}
		d1, snap, full, err := store.ApplyEdit(d0, snap, c, e)
		if err != nil {
			return err
		}
		at := millis(e.At)
		_, err = tx.ExecContext(ctx, `UPDATE documents SET revision = ?, item_count = ?, size_bytes = ?, updated_at = ?,
			pending_bytes = ? WHERE document_id = ?`, d1.Revision, d1.ItemCount, d1.SizeBytes, at, snap.PendingBytes, docID)
		if err == nil && full != nil {
			err = putSnapshot(ctx, tx, docID, d1.Revision, *full)
		}
		if err != nil {
			return fmt.Errorf("sqlite: updating document %q: %w", docID, err)
		}
		var spAt, spOld, spNew, reverted, idsAt, idsOld, idsNew, idsNext any // NULL: not recorded
		if sp := e.Splice; sp != nil {
			spAt, spOld, spNew = sp.At, sp.Old, sp.New
		}
		if is := e.IDs; is != nil {
			idsAt, idsOld, idsNew, idsNext = is.At, is.Old, docmodel.FormatIDRuns(is.New), is.Next
		}
		if e.RevertedTo != nil {
			reverted = *e.RevertedTo
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO document_edits (document_id, revision, run_id, tool_id, op, pointer,
			new_pointer, before, after, at, splice_at, splice_old, splice_new, reverted_to, ids_at, ids_old, ids_new, ids_next)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			docID, e.Revision, e.RunID, e.ToolID, e.Op, e.Pointer, e.NewPointer, e.Before, e.After, at, spAt, spOld, spNew,
			reverted, idsAt, idsOld, idsNew, idsNext)
		if err != nil {
			return fmt.Errorf("sqlite: journaling the edit of document %q: %w", docID, err)
		}
		d = d1
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
		out, err = documentEdits(ctx, tx, docID, afterRevision)
		return err
	})
	return out, err
}

// documentEdits returns the edits of a document after a revision.
func documentEdits(ctx context.Context, tx *sql.Tx, docID string, afterRevision int) ([]store.DocumentEdit, error) {
	return queryAll(ctx, tx, func(sc scanner) (store.DocumentEdit, error) {
		var e store.DocumentEdit
		var at int64
		var spAt, reverted, idsAt, idsOld, idsNext sql.NullInt64
		var spOld, spNew, idsNew sql.NullString
		err := sc.Scan(&e.DocumentID, &e.Revision, &e.RunID, &e.ToolID, &e.Op, &e.Pointer, &e.NewPointer,
			&e.Before, &e.After, &at, &spAt, &spOld, &spNew, &reverted, &idsAt, &idsOld, &idsNew, &idsNext)
		if err != nil {
			return e, err
		}
		e.At = fromMillis(at)
		if spAt.Valid {
			e.Splice = &store.Splice{At: int(spAt.Int64), Old: spOld.String, New: spNew.String}
		}
		if reverted.Valid {
			r := int(reverted.Int64)
			e.RevertedTo = &r
		}
		if idsAt.Valid {
			e.IDs = &store.IDSplice{At: int(idsAt.Int64), Old: int(idsOld.Int64), Next: int(idsNext.Int64)}
			if e.IDs.New, err = docmodel.ParseIDRunsUpTo(idsNew.String, max(0, e.IDs.Next-1)); err != nil {
				return e, fmt.Errorf("document %q revision %d: %w", e.DocumentID, e.Revision, err)
			}
			if e.IDs.New == nil {
				e.IDs.New = []int{}
			}
		}
		return e, nil
	}, `SELECT document_id, revision, run_id, tool_id, op, pointer, new_pointer, before, after, at,
		splice_at, splice_old, splice_new, reverted_to, ids_at, ids_old, ids_new, ids_next
		FROM document_edits WHERE document_id = ? AND revision > ? ORDER BY revision`, docID, afterRevision)
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
