-- expect: prefer-timestamptz
-- migrate:up
ALTER TABLE tasks ADD COLUMN archived_at timestamp;
