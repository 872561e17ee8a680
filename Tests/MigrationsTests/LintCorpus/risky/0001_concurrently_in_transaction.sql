-- expect: concurrently-in-transaction
-- migrate:up
CREATE INDEX CONCURRENTLY tasks_title_idx ON tasks (team_id, title);
