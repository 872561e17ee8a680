-- expect: none
-- migrate:up
CREATE FUNCTION taskbase_team_count() RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path FROM CURRENT
    AS $$ SELECT count(*) FROM public.teams $$;
