-- expect: none
-- migrate:up
ALTER FUNCTION taskbase_team_count() SET search_path = pg_catalog, public, pg_temp;
