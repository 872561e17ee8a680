-- expect: no-transaction-multiple-statements
-- migrate:no-transaction

-- migrate:up
CREATE INDEX CONCURRENTLY tasks_title_idx ON tasks (team_id, title);
CREATE INDEX CONCURRENTLY tasks_notes_idx ON tasks (team_id, notes);
