-- expect: create-index-not-concurrently
-- migrate:up
ALTER TABLE tasks ADD COLUMN slug text UNIQUE;
