-- expect: truncate
-- migrate:up
TRUNCATE teams CASCADE;
