-- expect: constraint-without-not-valid
-- migrate:up
ALTER TABLE tasks ADD CONSTRAINT tasks_created_by_fkey FOREIGN KEY (created_by) REFERENCES users (id);
