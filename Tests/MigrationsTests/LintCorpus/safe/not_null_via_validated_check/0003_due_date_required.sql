-- expect: none
-- migrate:up
ALTER TABLE tasks ALTER COLUMN due_date SET NOT NULL;
ALTER TABLE tasks DROP CONSTRAINT tasks_due_date_not_null;
