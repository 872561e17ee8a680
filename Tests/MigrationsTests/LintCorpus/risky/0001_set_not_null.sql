-- expect: set-not-null
-- migrate:up
ALTER TABLE tasks ALTER COLUMN due_date SET NOT NULL;
