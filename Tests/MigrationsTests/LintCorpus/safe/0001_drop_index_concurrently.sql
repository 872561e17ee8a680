-- expect: none
-- migrate:no-transaction

-- migrate:up
DROP INDEX CONCURRENTLY IF EXISTS tasks_team_due_idx;
