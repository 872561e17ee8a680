-- expect: drop-table
-- migrate:up
DROP TABLE task_history;
