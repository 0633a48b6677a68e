-- store/sqlite's 0008: documents are kept as a snapshot and a journal (store/journal.go):
-- markdown, item_ids and next_item_id hold the text and item IDs at revision snapshot_revision,
-- and every later edit records its change (splice_* of the text; ids_* of the item IDs: ids_old
-- IDs from index ids_at on became the runs ids_new, and the next item ID ids_next), so an edit
-- writes what it changed, not the document. pending_bytes sums the text changes journaled since
-- the snapshot. Rows from before this step hold their current text: their snapshot is their
-- revision.
ALTER TABLE documents ADD COLUMN snapshot_revision INTEGER NOT NULL DEFAULT 0 CHECK (snapshot_revision >= 0);
ALTER TABLE documents ADD COLUMN pending_bytes INTEGER NOT NULL DEFAULT 0 CHECK (pending_bytes >= 0);
UPDATE documents SET snapshot_revision = revision;
ALTER TABLE document_edits ADD COLUMN ids_at INTEGER CHECK (ids_at IS NULL OR ids_at >= 0);
ALTER TABLE document_edits ADD COLUMN ids_old INTEGER CHECK (ids_old IS NULL OR ids_old >= 0);
ALTER TABLE document_edits ADD COLUMN ids_new TEXT;
ALTER TABLE document_edits ADD COLUMN ids_next INTEGER CHECK (ids_next IS NULL OR ids_next >= 1);
