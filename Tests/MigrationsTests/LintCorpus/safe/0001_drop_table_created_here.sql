-- expect: none
-- migrate:up
CREATE TABLE import_scratch (line bigint PRIMARY KEY, payload text NOT NULL);
INSERT INTO import_scratch VALUES (1, 'x');
DROP TABLE import_scratch;
