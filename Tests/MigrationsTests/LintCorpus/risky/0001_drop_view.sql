-- expect: drop-object
-- migrate:up
DROP VIEW task_events;
