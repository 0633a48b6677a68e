-- Documents with their current Markdown, and the journal of applied edits.
CREATE TABLE documents (
    document_id TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    markdown    TEXT NOT NULL,
    revision    INTEGER NOT NULL CHECK (revision >= 0),
    item_count  INTEGER NOT NULL,
    size_bytes  INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX documents_by_update ON documents (updated_at DESC, document_id);

CREATE TABLE document_edits (
    document_id TEXT NOT NULL REFERENCES documents (document_id),
    revision    INTEGER NOT NULL CHECK (revision >= 1),
    run_id      TEXT NOT NULL DEFAULT '',
    tool_id     TEXT NOT NULL DEFAULT '',
    op          TEXT NOT NULL,
    pointer     TEXT NOT NULL DEFAULT '',
    new_pointer TEXT NOT NULL DEFAULT '',
    before      TEXT NOT NULL DEFAULT '',
    after       TEXT NOT NULL DEFAULT '',
    at          INTEGER NOT NULL,
    PRIMARY KEY (document_id, revision)
) STRICT;
