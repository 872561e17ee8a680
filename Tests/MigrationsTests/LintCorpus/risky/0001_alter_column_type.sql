-- expect: alter-column-type
-- migrate:up
ALTER TABLE tasks ALTER COLUMN version TYPE numeric;
