-- Documents are kept as a snapshot and a journal (store/journal.go). A document's snapshot is its
-- text and item IDs at some revision, in a row of its own (so that the documents row an edit
-- updates stays small: SQLite rewrites a row whole), and every later edit records its change
-- (splice_* of the text; ids_* of the item IDs: ids_old IDs from index ids_at on became the runs
-- ids_new, and the next item ID became ids_next), so an edit writes what it changed, not the
-- document. pending_bytes sums the text changes journaled since the snapshot. A document from
-- before this step is its own snapshot.
-- (The text is the last column: reading the others then does not walk its overflow pages.)
CREATE TABLE document_snapshots (
    document_id  TEXT PRIMARY KEY REFERENCES documents (document_id),
    revision     INTEGER NOT NULL CHECK (revision >= 0),
    next_item_id INTEGER NOT NULL CHECK (next_item_id >= 0),
    item_ids     TEXT NOT NULL,
    markdown     TEXT NOT NULL
) STRICT;
INSERT INTO document_snapshots (document_id, revision, next_item_id, item_ids, markdown)
    SELECT document_id, revision, next_item_id, item_ids, markdown FROM documents;
ALTER TABLE documents DROP COLUMN markdown;
ALTER TABLE documents DROP COLUMN item_ids;
ALTER TABLE documents DROP COLUMN next_item_id;
ALTER TABLE documents ADD COLUMN pending_bytes INTEGER NOT NULL DEFAULT 0 CHECK (pending_bytes >= 0);
ALTER TABLE document_edits ADD COLUMN ids_at INTEGER CHECK (ids_at IS NULL OR ids_at >= 0);
ALTER TABLE document_edits ADD COLUMN ids_old INTEGER CHECK (ids_old IS NULL OR ids_old >= 0);
ALTER TABLE document_edits ADD COLUMN ids_new TEXT;
ALTER TABLE document_edits ADD COLUMN ids_next INTEGER CHECK (ids_next IS NULL OR ids_next >= 1);
