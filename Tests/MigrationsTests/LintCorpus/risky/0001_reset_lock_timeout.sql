-- expect: timeout-disabled
-- migrate:up
RESET lock_timeout;
ALTER TABLE tasks ADD COLUMN description text;
