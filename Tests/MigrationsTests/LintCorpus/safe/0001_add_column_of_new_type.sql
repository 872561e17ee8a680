-- expect: none
-- migrate:up
ALTER TABLE tasks ADD COLUMN version_wide numeric;
