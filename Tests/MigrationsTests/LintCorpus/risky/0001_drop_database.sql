-- expect: drop-database
-- migrate:no-transaction

-- migrate:up
DROP DATABASE taskbase_archive;
