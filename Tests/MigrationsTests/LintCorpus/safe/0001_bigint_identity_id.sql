-- expect: none
-- migrate:up
CREATE TABLE labels (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL);
