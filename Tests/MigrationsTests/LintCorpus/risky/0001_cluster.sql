-- expect: cluster
-- migrate:up
CLUSTER tasks USING tasks_pkey;
