-- expect: timeout-disabled
-- migrate:up
SET lock_timeout = 0;
ALTER TABLE tasks ADD COLUMN description text;
