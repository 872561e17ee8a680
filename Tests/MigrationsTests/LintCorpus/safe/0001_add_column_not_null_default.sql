-- expect: none
-- migrate:up
ALTER TABLE tasks ADD COLUMN estimate integer NOT NULL DEFAULT 0;
