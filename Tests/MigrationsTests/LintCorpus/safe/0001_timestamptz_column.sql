-- expect: none
-- migrate:up
ALTER TABLE tasks ADD COLUMN archived_at timestamptz;
