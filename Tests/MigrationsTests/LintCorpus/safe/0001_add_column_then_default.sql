-- expect: none
-- migrate:up
ALTER TABLE tasks ADD COLUMN token uuid;
ALTER TABLE tasks ALTER COLUMN token SET DEFAULT gen_random_uuid();
