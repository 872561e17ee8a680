-- Admins and owners no longer see every user: they find one by the exact email they add.
--
-- Since 0009 an admin or owner of any team could read every row of `users`, so that they could
-- add members by email. Any enabled user may create a team and so become its owner: with the
-- runtime login, `SELECT email FROM users` then listed every account, and over the API
-- `PUT /v1/teams/T/members/%23{id}`, walking the ids, read back each one's email and name.
--
-- Now the `users` policy shows the acting user themself, users sharing a team with them, and
-- everyone only to enabled operators. An enabled admin or owner of some team finds anyone else
-- through `taskbase_user_by_email(address)` (SECURITY DEFINER, search_path pinned), which
-- returns the one row whose lowercased email is the address given, and nothing to anyone else:
-- it tells whether an address they already know has an account, which adding by email tells
-- anyway, and never lists, nor maps an id to an address.

-- migrate:up
CREATE OR REPLACE FUNCTION public.taskbase_acting_user_sees_everyone() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN public.taskbase_acting_operator();
    END
    $$;

CREATE FUNCTION public.taskbase_user_by_email(address text) RETURNS SETOF public.users
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        IF pg_catalog.cardinality(public.taskbase_team_ids('admin')) = 0 THEN
            RETURN;
        END IF;
        RETURN QUERY SELECT u.* FROM public.users u WHERE pg_catalog.lower(u.email) = address;
    END
    $$;

REVOKE ALL ON FUNCTION public.taskbase_user_by_email(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.taskbase_user_by_email(text) TO taskbase_app;

-- migrate:down
DROP FUNCTION public.taskbase_user_by_email(text);
CREATE OR REPLACE FUNCTION public.taskbase_acting_user_sees_everyone() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN public.taskbase_acting_operator() OR cardinality(public.taskbase_team_ids('admin')) > 0;
    END
    $$;
