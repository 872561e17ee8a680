-- expect: ban-char
-- migrate:up
ALTER TABLE teams ADD COLUMN country char(2);
