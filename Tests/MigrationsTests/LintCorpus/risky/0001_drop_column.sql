-- expect: drop-column
-- migrate:up
ALTER TABLE tasks DROP COLUMN notes;
