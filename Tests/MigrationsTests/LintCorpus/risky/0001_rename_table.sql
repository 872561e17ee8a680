-- expect: rename-table
-- migrate:up
ALTER TABLE task_history RENAME TO task_events;
