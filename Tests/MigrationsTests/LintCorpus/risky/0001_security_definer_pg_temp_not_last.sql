-- expect: security-definer-search-path
-- migrate:up
CREATE FUNCTION taskbase_team_count() RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public
    AS $$ SELECT count(*) FROM teams $$;
