-- expect: none
-- migrate:no-transaction

-- migrate:up
REINDEX INDEX CONCURRENTLY tasks_team_due_idx;
