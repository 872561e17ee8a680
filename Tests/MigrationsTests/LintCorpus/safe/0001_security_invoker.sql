-- expect: none
-- migrate:up
CREATE FUNCTION taskbase_team_count() RETURNS bigint
    LANGUAGE sql STABLE
    AS $$ SELECT count(*) FROM teams $$;
