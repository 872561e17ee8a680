-- History is read by task number from 0016 on, and nothing reads it by task id any more: the
-- index by (team_id, task_id, id) only cost every history write (each task change, each
-- imported task) one more index entry. Dropped CONCURRENTLY, so no query waits behind it.
-- migrate:no-transaction

-- migrate:up
DROP INDEX CONCURRENTLY IF EXISTS task_history_task_idx;

-- migrate:down
CREATE INDEX CONCURRENTLY IF NOT EXISTS task_history_task_idx ON task_history (team_id, task_id, id);
