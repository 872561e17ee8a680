-- expect: none
-- migrate:up
ALTER TABLE tasks RENAME CONSTRAINT tasks_title_length TO tasks_title_size;
