-- Filtering a team's tasks by category. Built CONCURRENTLY so that writes to tasks go on
-- while it builds, which cannot run inside a transaction. If it fails part way, PostgreSQL
-- leaves an INVALID index behind: drop it (DROP INDEX CONCURRENTLY tasks_team_category_idx)
-- before running `taskmigrate up` again.
-- migrate:no-transaction

-- migrate:up
CREATE INDEX CONCURRENTLY tasks_team_category_idx ON tasks (team_id, category);

-- migrate:down
DROP INDEX CONCURRENTLY IF EXISTS tasks_team_category_idx;
