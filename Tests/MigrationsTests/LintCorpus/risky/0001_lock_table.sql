-- expect: lock-table
-- migrate:up
LOCK TABLE tasks;
UPDATE tasks SET priority = 'none' WHERE priority = '';
