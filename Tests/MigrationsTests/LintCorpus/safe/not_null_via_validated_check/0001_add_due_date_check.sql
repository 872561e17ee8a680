-- expect: none
-- migrate:up
ALTER TABLE tasks ADD CONSTRAINT tasks_due_date_not_null CHECK (due_date IS NOT NULL) NOT VALID;
