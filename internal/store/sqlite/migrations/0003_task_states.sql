-- Cursor-agent task states, one opaque JSON state per task, replaced on every save.
CREATE TABLE task_states (
    task_id    TEXT PRIMARY KEY,
    state      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
