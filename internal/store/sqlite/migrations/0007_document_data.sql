-- What aite derives from a document and keeps beside it, by name: its codex, its vector
-- index, the plan of an interrupted codex build (store.DocumentData).
CREATE TABLE document_data (
    document_id TEXT NOT NULL REFERENCES documents (document_id),
    name        TEXT NOT NULL,
    data        BLOB NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (document_id, name)
) STRICT;
