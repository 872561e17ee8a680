-- expect: none
-- migrate:up
UPDATE tasks SET state = 'blocked' WHERE status = 'blocked';
