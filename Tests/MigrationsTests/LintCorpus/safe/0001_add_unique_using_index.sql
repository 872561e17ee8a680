-- expect: none
-- migrate:up
ALTER TABLE tasks ADD CONSTRAINT tasks_title_key UNIQUE USING INDEX tasks_title_idx;
