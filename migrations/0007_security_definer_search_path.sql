-- Pins the search_path of every SECURITY DEFINER function (issue #16). 0002 gave
-- taskbase_visible_team_ids() `SET search_path FROM CURRENT`, which puts pg_temp first by
-- default: a caller's temporary tables named memberships or users shadowed the real ones, so
-- the runtime login could claim every team for any user and read and change its rows.
--
-- As PostgreSQL's manual says ("Writing SECURITY DEFINER Functions Safely"): the path is
-- pg_catalog, then the schema, then pg_temp last, and every name the body uses is qualified
-- with its schema too, so that neither a temporary object nor an object in another schema
-- can stand in for one the function means.

-- migrate:up
CREATE OR REPLACE FUNCTION public.taskbase_visible_team_ids() RETURNS bigint[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN ARRAY(
            SELECT m.team_id
              FROM public.memberships m JOIN public.users u ON u.id = m.user_id
             WHERE m.user_id = public.taskbase_current_user_id() AND NOT u.disabled
            UNION
            SELECT t.id
              FROM public.teams t JOIN public.users u ON u.id = t.created_by
             WHERE t.created_by = public.taskbase_current_user_id() AND NOT u.disabled);
    END
    $$;

-- taskbase_current_user_id() is not SECURITY DEFINER (it runs with the caller's rights, so
-- what it resolves is the caller's own business) and stays a plain SQL function, which the
-- planner inlines into every policy.

-- migrate:down
-- Back to 0002's definition, as the schema was before this migration.
CREATE OR REPLACE FUNCTION taskbase_visible_team_ids() RETURNS bigint[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path FROM CURRENT
    AS $$
    BEGIN
        RETURN ARRAY(
            SELECT m.team_id
              FROM memberships m JOIN users u ON u.id = m.user_id
             WHERE m.user_id = taskbase_current_user_id() AND NOT u.disabled
            UNION
            SELECT t.id
              FROM teams t JOIN users u ON u.id = t.created_by
             WHERE t.created_by = taskbase_current_user_id() AND NOT u.disabled);
    END
    $$;
