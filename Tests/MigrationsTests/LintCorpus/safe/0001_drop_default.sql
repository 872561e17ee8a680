-- expect: none
-- migrate:up
ALTER TABLE tasks ALTER COLUMN due_date DROP DEFAULT;
