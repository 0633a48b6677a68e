-- Chats, runs and their history: messages, system snapshots, live events, plans.
-- Times are epoch milliseconds (UTC); JSON columns hold the text exactly as given.
CREATE TABLE chats (
    chat_id          TEXT PRIMARY KEY,
    chat_name        TEXT NOT NULL,
    agent_key        TEXT NOT NULL,
    document_id      TEXT NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    last_run_id      TEXT NOT NULL DEFAULT '',
    last_run_content TEXT NOT NULL DEFAULT '',
    read_status      INTEGER NOT NULL DEFAULT 0 CHECK (read_status IN (0, 1)),
    read_at          INTEGER
) STRICT;
CREATE INDEX chats_by_update ON chats (updated_at DESC, chat_id);

CREATE TABLE runs (
    run_id        TEXT PRIMARY KEY,
    chat_id       TEXT NOT NULL REFERENCES chats (chat_id),
    request_id    TEXT NOT NULL,
    agent_key     TEXT NOT NULL,
    query         TEXT,
    status        TEXT NOT NULL CHECK (status IN ('running', 'completed', 'timeout', 'error')),
    finish_reason TEXT NOT NULL DEFAULT '',
    error_code    TEXT NOT NULL DEFAULT '',
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER
) STRICT;
CREATE INDEX runs_by_chat ON runs (chat_id, run_id);
CREATE INDEX runs_running ON runs (run_id) WHERE status = 'running';

CREATE TABLE messages (
    run_id  TEXT NOT NULL REFERENCES runs (run_id),
    ord     INTEGER NOT NULL,
    stage   TEXT NOT NULL DEFAULT '',
    task_id TEXT NOT NULL DEFAULT '',
    msg_id  TEXT NOT NULL DEFAULT '',
    message TEXT NOT NULL,
    PRIMARY KEY (run_id, ord)
) STRICT;

CREATE TABLE run_systems (
    run_id TEXT NOT NULL REFERENCES runs (run_id),
    ord    INTEGER NOT NULL,
    stage  TEXT NOT NULL DEFAULT '',
    system TEXT NOT NULL,
    PRIMARY KEY (run_id, ord)
) STRICT;

CREATE TABLE events (
    run_id    TEXT NOT NULL REFERENCES runs (run_id),
    seq       INTEGER NOT NULL CHECK (seq >= 1),
    type      TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    event     TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) STRICT;

CREATE TABLE plans (
    plan_id    TEXT PRIMARY KEY,
    chat_id    TEXT NOT NULL REFERENCES chats (chat_id),
    run_id     TEXT NOT NULL REFERENCES runs (run_id),
    tasks      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX plans_by_chat ON plans (chat_id, updated_at DESC, plan_id DESC);
