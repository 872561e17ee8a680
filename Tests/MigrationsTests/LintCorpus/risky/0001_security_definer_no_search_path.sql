-- expect: security-definer-search-path
-- migrate:up
CREATE FUNCTION taskbase_team_count() RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER
    AS $$ SELECT count(*) FROM teams $$;
