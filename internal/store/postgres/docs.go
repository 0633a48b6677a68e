package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	docmodel "github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/store"
)

// SavePlan implements store.Plans.
func (s *Store) SavePlan(ctx context.Context, p store.Plan) error {
	if err := store.ValidatePlan(p); err != nil {
		return err
	}
	if err := s.needChat(ctx, p.ChatID); err != nil {
		return err
	}
	if err := s.needRun(ctx, p.RunID); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO plans (plan_id, chat_id, run_id, tasks, updated_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (plan_id) DO UPDATE SET chat_id = excluded.chat_id, run_id = excluded.run_id,
		tasks = excluded.tasks, updated_at = excluded.updated_at`,
		p.ID, p.ChatID, p.RunID, []byte(p.Tasks), millis(p.UpdatedAt))
	if err != nil {
		return failed(ctx, err, "saving plan %q", p.ID)
	}
	return nil
}

const planColumns = `plan_id, chat_id, run_id, tasks, updated_at`

// GetPlan implements store.Plans.
func (s *Store) GetPlan(ctx context.Context, id string) (store.Plan, error) {
	return s.onePlan(ctx, fmt.Sprintf("plan %q", id), `SELECT `+planColumns+` FROM plans WHERE plan_id = $1`, id)
}

// LatestPlan implements store.Plans.
func (s *Store) LatestPlan(ctx context.Context, chatID string) (store.Plan, error) {
	return s.onePlan(ctx, fmt.Sprintf("plan of chat %q", chatID), `SELECT `+planColumns+` FROM plans WHERE chat_id = $1
		ORDER BY updated_at DESC, plan_id DESC LIMIT 1`, chatID)
}

func (s *Store) onePlan(ctx context.Context, what, query string, arg string) (store.Plan, error) {
	if err := ctx.Err(); err != nil {
		return store.Plan{}, err
	}
	var p store.Plan
	var updated int64
	err := s.pool.QueryRow(ctx, query, arg).Scan(&p.ID, &p.ChatID, &p.RunID, &p.Tasks, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Plan{}, fmt.Errorf("%s: %w", what, store.ErrNotFound)
	} else if err != nil {
		return store.Plan{}, failed(ctx, err, "reading %s", what)
	}
	p.UpdatedAt = fromMillis(updated)
	return p, nil
}

const documentColumns = `document_id, name, markdown, revision, item_count, item_ids, next_item_id, size_bytes,
	created_at, updated_at, owner`

// CreateDocument implements store.Documents.
func (s *Store) CreateDocument(ctx context.Context, d store.Document) (store.Document, error) {
	if err := store.ValidateNewDocument(d); err != nil {
		return store.Document{}, err
	}
	if err := ctx.Err(); err != nil {
		return store.Document{}, err
	}
	d.SizeBytes, d.CreatedAt, d.UpdatedAt = len(d.Markdown), store.StoredTime(d.CreatedAt), store.StoredTime(d.UpdatedAt)
	tag, err := s.pool.Exec(ctx, `INSERT INTO documents (`+documentColumns+`)
		VALUES ($1, $2, $3, 0, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (document_id) DO NOTHING`,
		d.ID, []byte(d.Name), []byte(d.Markdown), d.ItemCount, docmodel.FormatIDRuns(d.ItemIDs), d.NextItemID, d.SizeBytes,
		millis(d.CreatedAt), millis(d.UpdatedAt), d.Owner)
	switch {
	case err != nil:
		return store.Document{}, failed(ctx, err, "creating document %q", d.ID)
	case tag.RowsAffected() == 0:
		return store.Document{}, fmt.Errorf("document %q: %w", d.ID, store.ErrExists)
	}
	d.ItemIDs = store.StoredIDs(d.ItemIDs)
	return d, nil
}

// GetDocument implements store.Documents: the snapshot with the edits since
// replayed (store.Current), read in one snapshot of the database.
func (s *Store) GetDocument(ctx context.Context, id string) (store.Document, error) {
	if err := ctx.Err(); err != nil {
		return store.Document{}, err
	}
	var d store.Document
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			d0, snap, err := documentRow(ctx, tx, id, true, "")
			if err != nil || d0.Revision == snap.Revision {
				d = d0
				return err
			}
			edits, err := documentEdits(ctx, tx, id, snap.Revision)
			if err != nil {
				return err
			}
			c := store.DocumentContent{Markdown: d0.Markdown, ItemCount: len(d0.ItemIDs), ItemIDs: d0.ItemIDs, NextItemID: d0.NextItemID}
			d, err = store.Current(d0, c, edits)
			return err
		})
	if err != nil {
		return store.Document{}, err
	}
	return d, nil
}

// queryRower is a pool or a transaction.
type queryRower interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// documentRow reads a document's row: its summary, with the snapshot's
// text and item IDs when withText (the summary's item count, size and
// revision are the current ones), and the snapshot's description; lock is
// "" or a locking clause.
func documentRow(ctx context.Context, q queryRower, id string, withText bool, lock string) (store.Document, store.Snapshot, error) {
	text := "markdown, item_ids"
	if !withText {
		text = "''::bytea, ''"
	}
	var snap store.Snapshot
	var d store.Document
	var name, markdown []byte
	var ids string
	var created, updated int64
	err := q.QueryRow(ctx, `SELECT document_id, name, `+text+`, revision, item_count, next_item_id, size_bytes,
		created_at, updated_at, owner, snapshot_revision, pending_bytes FROM documents WHERE document_id = $1 `+lock, id).Scan(
		&d.ID, &name, &markdown, &ids, &d.Revision, &d.ItemCount, &d.NextItemID, &d.SizeBytes,
		&created, &updated, &d.Owner, &snap.Revision, &snap.PendingBytes)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Document{}, snap, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.Document{}, snap, failed(ctx, err, "reading document %q", id)
	}
	d.Name, d.Markdown = string(name), string(markdown)
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

// ListDocuments implements store.Documents.
func (s *Store) ListDocuments(ctx context.Context) ([]store.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT document_id, name, revision, item_count, size_bytes,
		created_at, updated_at, owner FROM documents ORDER BY updated_at DESC, document_id`)
	out, err := collect(rows, err, func(r pgx.Rows) (store.Document, error) {
		var d store.Document
		var name []byte
		var created, updated int64
		err := r.Scan(&d.ID, &name, &d.Revision, &d.ItemCount, &d.SizeBytes, &created, &updated, &d.Owner)
		d.Name, d.CreatedAt, d.UpdatedAt = string(name), fromMillis(created), fromMillis(updated)
		return d, err
	})
	if err != nil {
		return nil, failed(ctx, err, "listing documents")
	}
	return out, nil
}

// ApplyDocumentEdit implements store.Documents: the edit's row, and the
// content it leaves as the new snapshot only when one is due
// (store.ApplyEdit). The document's row is locked for the edit, so
// concurrent edits (from any node) are applied one after the other and the
// second of two edits claiming the same revision is store.ErrConflict.
func (s *Store) ApplyDocumentEdit(ctx context.Context, docID string, c store.DocumentContent, e store.DocumentEdit) (store.Document, error) {
	var d store.Document
	err := s.write(ctx, func(tx pgx.Tx) error {
		d0, snap, err := documentRow(ctx, tx, docID, false, "FOR NO KEY UPDATE")
		if err != nil {
			return err
		}
		d1, snap, full, err := store.ApplyEdit(d0, snap, c, e)
		if err != nil {
			return err
		}
		at := millis(e.At)
		if full != nil {
			_, err = tx.Exec(ctx, `UPDATE documents SET markdown = $2, revision = $3, item_count = $4, item_ids = $5,
				next_item_id = $6, size_bytes = $7, updated_at = $8, snapshot_revision = $3, pending_bytes = 0
				WHERE document_id = $1`,
				docID, []byte(full.Markdown), d1.Revision, d1.ItemCount, docmodel.FormatIDRuns(full.ItemIDs), full.NextItemID,
				d1.SizeBytes, at)
		} else {
			_, err = tx.Exec(ctx, `UPDATE documents SET revision = $2, item_count = $3, size_bytes = $4, updated_at = $5,
				pending_bytes = $6 WHERE document_id = $1`, docID, d1.Revision, d1.ItemCount, d1.SizeBytes, at, snap.PendingBytes)
		}
		if err != nil {
			return failed(ctx, err, "updating document %q", docID)
		}
		var spAt, idsAt, idsOld, idsNext *int
		var spOld, spNew []byte // nil: NULL, not recorded
		var idsNew *string
		if sp := e.Splice; sp != nil {
			spAt, spOld, spNew = &sp.At, append([]byte{}, sp.Old...), append([]byte{}, sp.New...)
		}
		if is := e.IDs; is != nil {
			runs := docmodel.FormatIDRuns(is.New)
			idsAt, idsOld, idsNew, idsNext = &is.At, &is.Old, &runs, &is.Next
		}
		_, err = tx.Exec(ctx, `INSERT INTO document_edits (document_id, revision, run_id, tool_id, op, pointer,
			new_pointer, before, after, at, splice_at, splice_old, splice_new, reverted_to, ids_at, ids_old, ids_new, ids_next)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
			docID, e.Revision, e.RunID, e.ToolID, e.Op, e.Pointer, e.NewPointer, []byte(e.Before), []byte(e.After), at,
			spAt, spOld, spNew, e.RevertedTo, idsAt, idsOld, idsNew, idsNext)
		if err != nil {
			return failed(ctx, err, "journaling the edit of document %q", docID)
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
	if err := s.need(ctx, `SELECT 1 FROM documents WHERE document_id = $1`, "document", docID); err != nil {
		return nil, err
	}
	return documentEdits(ctx, s.pool, docID, afterRevision)
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// documentEdits returns the edits of a document after a revision.
func documentEdits(ctx context.Context, q querier, docID string, afterRevision int) ([]store.DocumentEdit, error) {
	rows, err := q.Query(ctx, `SELECT document_id, revision, run_id, tool_id, op, pointer, new_pointer, before, after, at,
		splice_at, splice_old, splice_new, reverted_to, ids_at, ids_old, ids_new, ids_next FROM document_edits
		WHERE document_id = $1 AND revision > $2 ORDER BY revision`, docID, afterRevision)
	out, err := collect(rows, err, func(r pgx.Rows) (store.DocumentEdit, error) {
		var e store.DocumentEdit
		var before, after, spOld, spNew []byte
		var at int64
		var spAt, idsAt, idsOld, idsNext *int
		var idsNew *string
		err := r.Scan(&e.DocumentID, &e.Revision, &e.RunID, &e.ToolID, &e.Op, &e.Pointer, &e.NewPointer, &before, &after, &at,
			&spAt, &spOld, &spNew, &e.RevertedTo, &idsAt, &idsOld, &idsNew, &idsNext)
		if err != nil {
			return e, err
		}
		e.Before, e.After, e.At = string(before), string(after), fromMillis(at)
		if spAt != nil {
			e.Splice = &store.Splice{At: *spAt, Old: string(spOld), New: string(spNew)}
		}
		if idsAt != nil && idsOld != nil && idsNew != nil && idsNext != nil {
			e.IDs = &store.IDSplice{At: *idsAt, Old: *idsOld, Next: *idsNext, New: []int{}}
			ids, err := docmodel.ParseIDRunsUpTo(*idsNew, max(0, *idsNext-1))
			if err != nil {
				return e, fmt.Errorf("document %q revision %d: %w", e.DocumentID, e.Revision, err)
			}
			if ids != nil {
				e.IDs.New = ids
			}
		}
		return e, nil
	})
	if err != nil {
		return nil, failed(ctx, err, "reading the edits of document %q", docID)
	}
	return out, nil
}

// SaveTask implements store.Tasks.
func (s *Store) SaveTask(ctx context.Context, id string, body json.RawMessage, at time.Time) error {
	if err := store.ValidateTask(id, body); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO task_states (task_id, state, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (task_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
		id, []byte(body), millis(at))
	if err != nil {
		return failed(ctx, err, "saving task %q", id)
	}
	return nil
}

// LoadTask implements store.Tasks.
func (s *Store) LoadTask(ctx context.Context, id string) (store.TaskState, error) {
	if err := ctx.Err(); err != nil {
		return store.TaskState{}, err
	}
	t := store.TaskState{ID: id}
	var at int64
	err := s.pool.QueryRow(ctx, `SELECT state, updated_at FROM task_states WHERE task_id = $1`, id).Scan(&t.Body, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.TaskState{}, fmt.Errorf("task %q: %w", id, store.ErrNotFound)
	} else if err != nil {
		return store.TaskState{}, failed(ctx, err, "reading task %q", id)
	}
	t.UpdatedAt = fromMillis(at)
	return t, nil
}

// PutDocumentData implements store.DocumentData: one statement that stores
// the value only when the document exists.
func (s *Store) PutDocumentData(ctx context.Context, docID, name string, data []byte, at time.Time) error {
	if err := store.ValidateDocumentData(docID, name); err != nil {
		return err
	}
	if data == nil {
		data = []byte{}
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO document_data (document_id, name, data, updated_at)
		SELECT document_id, $2, $3, $4 FROM documents WHERE document_id = $1
		ON CONFLICT (document_id, name) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
		docID, name, data, millis(store.StoredTime(at)))
	switch {
	case err != nil:
		return failed(ctx, err, "saving %s of document %q", name, docID)
	case tag.RowsAffected() == 0:
		return fmt.Errorf("document %q: %w", docID, store.ErrNotFound)
	}
	return nil
}

// GetDocumentData implements store.DocumentData.
func (s *Store) GetDocumentData(ctx context.Context, docID, name string) (store.DocumentDatum, error) {
	d := store.DocumentDatum{DocumentID: docID, Name: name}
	var at int64
	err := s.pool.QueryRow(ctx, `SELECT data, updated_at FROM document_data WHERE document_id = $1 AND name = $2`,
		docID, name).Scan(&d.Data, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.DocumentDatum{}, fmt.Errorf("%s of document %q: %w", name, docID, store.ErrNotFound)
	} else if err != nil {
		return store.DocumentDatum{}, failed(ctx, err, "reading %s of document %q", name, docID)
	}
	d.UpdatedAt = fromMillis(at)
	return d, nil
}
