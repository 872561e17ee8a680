-- expect: drop-not-null
-- migrate:up
ALTER TABLE tasks ALTER COLUMN title DROP NOT NULL;
