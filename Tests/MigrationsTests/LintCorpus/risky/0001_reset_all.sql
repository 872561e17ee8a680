-- expect: timeout-disabled
-- migrate:up
RESET ALL;
ALTER TABLE tasks ADD COLUMN description text;
