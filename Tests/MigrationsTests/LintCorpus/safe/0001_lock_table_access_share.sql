-- expect: none
-- migrate:up
LOCK TABLE tasks IN ACCESS SHARE MODE;
UPDATE tasks SET priority = 'none' WHERE priority = '';
