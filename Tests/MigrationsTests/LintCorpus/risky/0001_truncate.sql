-- expect: truncate
-- migrate:up
TRUNCATE task_history;
