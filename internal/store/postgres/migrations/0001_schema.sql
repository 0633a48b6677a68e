-- The aite schema on PostgreSQL: the tables of store/sqlite's migrations 0001-0004 in one step,
-- plus run ownership (runs.node_id) and the node leases of several server processes. The later
-- steps mirror store/sqlite's one for one (0002 is its 0005, 0003 its 0006).
-- Ids, keys and codes are TEXT COLLATE "C", so they sort by bytes as in SQLite; names,
-- contents, Markdown and JSON bodies are BYTEA, kept byte for byte (TEXT refuses a NUL byte
-- and invalid UTF-8). Times are epoch milliseconds (UTC), except the leases (the server's clock).
CREATE TABLE chats (
    chat_id          TEXT COLLATE "C" PRIMARY KEY,
    chat_name        BYTEA NOT NULL,
    agent_key        TEXT COLLATE "C" NOT NULL,
    document_id      TEXT COLLATE "C" NOT NULL DEFAULT '',
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    last_run_id      TEXT COLLATE "C" NOT NULL DEFAULT '',
    last_run_content BYTEA NOT NULL DEFAULT '',
    read_status      SMALLINT NOT NULL DEFAULT 0 CHECK (read_status IN (0, 1)),
    read_at          BIGINT
);
CREATE INDEX chats_by_update ON chats (updated_at DESC, chat_id);

-- node_id: the node that executes (or executed) the run; '' for none.
CREATE TABLE runs (
    run_id        TEXT COLLATE "C" PRIMARY KEY,
    chat_id       TEXT COLLATE "C" NOT NULL REFERENCES chats (chat_id),
    request_id    BYTEA NOT NULL,
    agent_key     TEXT COLLATE "C" NOT NULL,
    query         BYTEA,
    status        TEXT NOT NULL CHECK (status IN ('running', 'completed', 'timeout', 'error')),
    finish_reason TEXT NOT NULL DEFAULT '',
    error_code    TEXT NOT NULL DEFAULT '',
    started_at    BIGINT NOT NULL,
    ended_at      BIGINT,
    node_id       TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX runs_by_chat ON runs (chat_id, run_id);
CREATE INDEX runs_running ON runs (node_id, run_id) WHERE status = 'running';
CREATE INDEX runs_running_by_chat ON runs (chat_id) WHERE status = 'running';

CREATE TABLE messages (
    run_id  TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    ord     INTEGER NOT NULL,
    stage   TEXT NOT NULL DEFAULT '',
    task_id TEXT NOT NULL DEFAULT '',
    msg_id  TEXT NOT NULL DEFAULT '',
    message BYTEA NOT NULL,
    PRIMARY KEY (run_id, ord)
);

CREATE TABLE run_systems (
    run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    ord    INTEGER NOT NULL,
    stage  TEXT NOT NULL DEFAULT '',
    system BYTEA NOT NULL,
    PRIMARY KEY (run_id, ord)
);

CREATE TABLE events (
    run_id    TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    seq       BIGINT NOT NULL CHECK (seq >= 1),
    type      TEXT NOT NULL,
    timestamp BIGINT NOT NULL,
    event     BYTEA NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE plans (
    plan_id    TEXT COLLATE "C" PRIMARY KEY,
    chat_id    TEXT COLLATE "C" NOT NULL REFERENCES chats (chat_id),
    run_id     TEXT COLLATE "C" NOT NULL REFERENCES runs (run_id),
    tasks      BYTEA NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX plans_by_chat ON plans (chat_id, updated_at DESC, plan_id DESC);

-- item_ids: runs of consecutive ids (document.FormatIDRuns); next_item_id 0 means not recorded.
CREATE TABLE documents (
    document_id  TEXT COLLATE "C" PRIMARY KEY,
    name         BYTEA NOT NULL,
    markdown     BYTEA NOT NULL,
    revision     INTEGER NOT NULL CHECK (revision >= 0),
    item_count   INTEGER NOT NULL,
    item_ids     TEXT NOT NULL DEFAULT '',
    next_item_id INTEGER NOT NULL DEFAULT 0 CHECK (next_item_id >= 0),
    size_bytes   INTEGER NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE INDEX documents_by_update ON documents (updated_at DESC, document_id);

CREATE TABLE document_edits (
    document_id TEXT COLLATE "C" NOT NULL REFERENCES documents (document_id),
    revision    INTEGER NOT NULL CHECK (revision >= 1),
    run_id      TEXT COLLATE "C" NOT NULL DEFAULT '',
    tool_id     TEXT NOT NULL DEFAULT '',
    op          TEXT NOT NULL,
    pointer     TEXT NOT NULL DEFAULT '',
    new_pointer TEXT NOT NULL DEFAULT '',
    before      BYTEA NOT NULL DEFAULT '',
    after       BYTEA NOT NULL DEFAULT '',
    at          BIGINT NOT NULL,
    PRIMARY KEY (document_id, revision)
);

CREATE TABLE task_states (
    task_id    TEXT COLLATE "C" PRIMARY KEY,
    state      BYTEA NOT NULL,
    updated_at BIGINT NOT NULL
);

-- The leases of the nodes (server processes) sharing the database: a node owns its runs
-- while lease_until is ahead of the server's clock. Rows of nodes long gone that own no
-- running run are removed by ClaimExpiredRuns.
CREATE TABLE nodes (
    node_id     TEXT COLLATE "C" PRIMARY KEY,
    started_at  TIMESTAMPTZ NOT NULL,
    lease_until TIMESTAMPTZ NOT NULL
);
