-- expect: rename-column
-- migrate:up
ALTER TABLE tasks RENAME COLUMN notes TO description;
