-- store/sqlite's 0005: the byte change each edit made to its document's text (the bytes
-- splice_old at byte offset splice_at became splice_new), so that an earlier revision can be
-- rebuilt from the current text and restored. NULL in rows from before this step: not recorded.
ALTER TABLE document_edits ADD COLUMN splice_at INTEGER CHECK (splice_at IS NULL OR splice_at >= 0);
ALTER TABLE document_edits ADD COLUMN splice_old BYTEA;
ALTER TABLE document_edits ADD COLUMN splice_new BYTEA;
-- For an edit that restored an earlier revision (op "revert"): that revision; NULL otherwise.
ALTER TABLE document_edits ADD COLUMN reverted_to INTEGER CHECK (reverted_to IS NULL OR reverted_to >= 0);
