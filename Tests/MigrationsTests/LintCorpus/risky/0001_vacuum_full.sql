-- expect: vacuum-full
-- migrate:no-transaction

-- migrate:up
VACUUM FULL task_history;
