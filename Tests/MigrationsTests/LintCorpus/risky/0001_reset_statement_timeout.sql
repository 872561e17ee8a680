-- expect: timeout-disabled
-- migrate:up
RESET statement_timeout;
UPDATE tasks SET notes = btrim(notes);
