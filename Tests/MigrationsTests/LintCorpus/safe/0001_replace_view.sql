-- expect: none
-- migrate:up
CREATE OR REPLACE VIEW task_events AS SELECT * FROM task_history;
