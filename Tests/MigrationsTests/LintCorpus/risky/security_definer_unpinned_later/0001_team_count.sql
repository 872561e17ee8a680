-- expect: security-definer-search-path
-- migrate:up
CREATE FUNCTION taskbase_team_count() RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$ SELECT count(*) FROM public.teams $$;
