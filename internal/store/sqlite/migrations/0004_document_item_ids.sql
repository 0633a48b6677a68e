-- The item IDs of each document, so that pointers name the same items after a restart:
-- item_ids lists them in document order as comma-separated runs of consecutive IDs
-- (`1-40,57,41-56`), next_item_id is the ID the next new item gets. Rows from before this
-- step keep next_item_id 0 and item_ids '': not recorded, the IDs are 1..item_count.
ALTER TABLE documents ADD COLUMN item_ids TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN next_item_id INTEGER NOT NULL DEFAULT 0 CHECK (next_item_id >= 0);
