-- expect: none
-- migrate:up
DELETE FROM task_history WHERE changed_at < now() - interval '5 years';
