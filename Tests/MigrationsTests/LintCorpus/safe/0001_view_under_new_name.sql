-- expect: none
-- migrate:up
CREATE VIEW task_events AS SELECT * FROM task_history;
