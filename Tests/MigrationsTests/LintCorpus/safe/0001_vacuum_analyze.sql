-- expect: none
-- migrate:no-transaction

-- migrate:up
VACUUM (ANALYZE) task_history;
