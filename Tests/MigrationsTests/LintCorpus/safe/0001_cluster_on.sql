-- expect: none
-- migrate:up
ALTER TABLE tasks CLUSTER ON tasks_pkey;
