-- expect: create-index-not-concurrently
-- migrate:up
ALTER TABLE tasks ADD CONSTRAINT tasks_title_key UNIQUE (team_id, title);
