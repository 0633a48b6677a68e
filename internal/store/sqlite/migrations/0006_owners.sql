-- The subject (JWT sub) a chat or a document belongs to when auth is on; '' for rows
-- created without auth (and for every row from before this step).
ALTER TABLE chats ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN owner TEXT NOT NULL DEFAULT '';
