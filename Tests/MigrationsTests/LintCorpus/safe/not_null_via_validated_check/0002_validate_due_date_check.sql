-- expect: none
-- migrate:up
ALTER TABLE tasks VALIDATE CONSTRAINT tasks_due_date_not_null;
