-- expect: none
-- migrate:up
ALTER TYPE task_state ADD VALUE 'blocked' AFTER 'in_progress';
