-- Reading a task's history by its key (0015): the entries of one (team_id, task_number), in
-- the order they were written. Built CONCURRENTLY so that writes of history (every task
-- change, every import) go on while it builds; a build that fails leaves an INVALID index,
-- which the next `taskmigrate up` drops and rebuilds.
-- migrate:no-transaction

-- migrate:up
CREATE INDEX CONCURRENTLY task_history_task_number_idx ON task_history (team_id, task_number, id);

-- migrate:down
DROP INDEX CONCURRENTLY IF EXISTS task_history_task_number_idx;
