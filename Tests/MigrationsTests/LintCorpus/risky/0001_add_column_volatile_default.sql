-- expect: volatile-default
-- migrate:up
ALTER TABLE tasks ADD COLUMN token uuid DEFAULT gen_random_uuid();
