-- expect: none
-- migrate:up
ALTER DOMAIN task_title ADD CONSTRAINT task_title_length CHECK (char_length(VALUE) <= 500) NOT VALID;
