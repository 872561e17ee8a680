-- The runtime role may read which migrations a database has applied: the version column
-- only, none of the checksums, times or names of who applied them. taskserve reads it to
-- refuse to start on a database never migrated and to answer /readyz with 503 while the
-- schema is older than it needs, rather than failing requests one by one.
-- A catalog-only change: no table is rewritten or locked beyond the grant itself.

-- migrate:up
GRANT SELECT (version) ON TABLE schema_migrations TO taskbase_app;

-- migrate:down
REVOKE SELECT (version) ON TABLE schema_migrations FROM taskbase_app;
