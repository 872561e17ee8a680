-- expect: none
-- migrate:up
ALTER TABLE tasks VALIDATE CONSTRAINT tasks_notes_length;
