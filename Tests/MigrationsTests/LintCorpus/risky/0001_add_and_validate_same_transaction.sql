-- expect: constraint-without-not-valid
-- migrate:up
ALTER TABLE tasks ADD CONSTRAINT tasks_notes_length CHECK (char_length(notes) <= 20000) NOT VALID;
ALTER TABLE tasks VALIDATE CONSTRAINT tasks_notes_length;
