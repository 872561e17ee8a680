-- expect: none
-- migrate:up
ALTER TABLE teams ADD COLUMN country text;
