-- expect: drop-schema
-- migrate:up
DROP SCHEMA archive CASCADE;
