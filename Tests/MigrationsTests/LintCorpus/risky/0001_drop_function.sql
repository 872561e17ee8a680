-- expect: drop-object
-- migrate:up
DROP FUNCTION IF EXISTS taskbase_current_user_id();
