-- expect: none
-- migrate:up
CREATE SCHEMA IF NOT EXISTS archive;
