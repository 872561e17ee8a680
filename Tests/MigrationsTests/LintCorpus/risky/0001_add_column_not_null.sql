-- expect: add-column-not-null-without-default
-- migrate:up
ALTER TABLE tasks ADD COLUMN estimate integer NOT NULL;
