-- expect: none
-- migrate:up
SET LOCAL lock_timeout = '10s';
ALTER TABLE tasks ADD COLUMN description text;
