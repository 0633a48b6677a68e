-- What aite derives from a document and keeps beside it, by name: its codex, its vector
-- index, the plan of an interrupted codex build (store.DocumentData; SQLite's 0007).
CREATE TABLE document_data (
    document_id TEXT COLLATE "C" NOT NULL REFERENCES documents (document_id),
    name        TEXT COLLATE "C" NOT NULL,
    data        BYTEA NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (document_id, name)
);
