-- expect: none
-- migrate:up
ALTER TABLE tasks ADD COLUMN description text;
