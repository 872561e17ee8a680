-- expect: none
-- migrate:up
REFRESH MATERIALIZED VIEW CONCURRENTLY task_counts;
