-- expect: none
-- migrate:up
ALTER TABLE tasks ADD COLUMN estimate_minutes integer;
