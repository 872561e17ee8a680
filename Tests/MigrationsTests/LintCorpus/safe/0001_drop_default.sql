-- expect: none
-- migrate:up
ALTER TABLE tasks ALTER COLUMN notes DROP DEFAULT;
