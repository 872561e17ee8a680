-- expect: timeout-disabled
-- migrate:up
SET statement_timeout TO DEFAULT;
UPDATE tasks SET notes = btrim(notes);
