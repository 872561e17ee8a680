-- expect: prefer-bigint-id
-- migrate:up
ALTER TABLE tasks ADD COLUMN parent_id integer;
