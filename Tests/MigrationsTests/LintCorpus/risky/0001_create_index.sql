-- expect: create-index-not-concurrently
-- migrate:up
CREATE INDEX tasks_title_idx ON tasks (team_id, title);
