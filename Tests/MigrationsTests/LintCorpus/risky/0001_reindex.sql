-- expect: reindex-not-concurrently
-- migrate:up
REINDEX INDEX tasks_team_due_idx;
