-- expect: drop-index-not-concurrently
-- migrate:up
DROP INDEX tasks_team_due_idx;
