-- store/sqlite's 0006: the subject (JWT sub) a chat or a document belongs to when auth is on;
-- '' for rows created without auth (and for every row from before this step). IF NOT EXISTS:
-- schemas made by the first build of this backend had the columns in 0001.
ALTER TABLE chats ADD COLUMN IF NOT EXISTS owner TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN IF NOT EXISTS owner TEXT COLLATE "C" NOT NULL DEFAULT '';
