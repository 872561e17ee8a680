-- expect: refresh-not-concurrently
-- migrate:up
REFRESH MATERIALIZED VIEW task_counts;
