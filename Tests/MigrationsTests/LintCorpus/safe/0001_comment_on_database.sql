-- expect: none
-- migrate:up
COMMENT ON TABLE tasks IS 'Tasks of every team';
