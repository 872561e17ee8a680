-- expect: enum-value-used-in-transaction
-- migrate:up
ALTER TYPE task_state ADD VALUE 'blocked' AFTER 'in_progress';
UPDATE tasks SET state = 'blocked' WHERE status = 'blocked';
