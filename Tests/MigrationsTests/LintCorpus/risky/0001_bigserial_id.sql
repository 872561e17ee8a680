-- expect: prefer-identity
-- migrate:up
CREATE TABLE labels (id bigserial PRIMARY KEY, name text NOT NULL);
