-- Operators and row-level security on users (issue #16).
--
-- Provisioning users (adding, disabling, enabling them, tokens for others) is an operator's
-- action: users.is_operator marks them. The runtime role may add or change users only while
-- acting as an enabled operator; nobody deletes users (they are disabled). The first
-- operator is made by the database's own administrator: a login that owns the schema
-- (taskbase_owner, or a superuser) is not subject to these policies, so
-- `taskctl user add EMAIL --name N --operator` without --as, run with that login, bootstraps.
--
-- users is readable by the runtime role only as the service needs: the acting user
-- themself, users who share a team with them (memberships is itself filtered to their
-- teams), and everyone for operators and for admins and owners of some team (they add
-- members by email). taskbase_user_id_for_email() resolves the acting user's email to an
-- id before any user is set (the session setup): it says no more than whether an email has
-- an account, and the runtime login can name any user id anyway (see docs/security.md).

-- migrate:up
ALTER TABLE public.users ADD COLUMN is_operator boolean NOT NULL DEFAULT false;

-- Whether the acting user is an enabled operator.
CREATE FUNCTION public.taskbase_acting_operator() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN EXISTS (
            SELECT 1 FROM public.users u WHERE u.id = public.taskbase_current_user_id() AND u.is_operator AND NOT u.disabled);
    END
    $$;

-- Whether the acting user may look up any user: an enabled operator, or an admin or owner of some team.
CREATE FUNCTION public.taskbase_acting_user_sees_everyone() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN public.taskbase_acting_operator() OR cardinality(public.taskbase_team_ids('admin')) > 0;
    END
    $$;

-- The id of the user with this email (compared lowercased), or NULL.
CREATE FUNCTION public.taskbase_user_id_for_email(address text) RETURNS bigint
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN (SELECT u.id FROM public.users u WHERE lower(u.email) = address);
    END
    $$;

REVOKE ALL ON FUNCTION public.taskbase_acting_operator(), public.taskbase_acting_user_sees_everyone(),
    public.taskbase_user_id_for_email(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.taskbase_acting_operator(), public.taskbase_acting_user_sees_everyone(),
    public.taskbase_user_id_for_email(text) TO taskbase_app;

REVOKE DELETE ON public.users FROM taskbase_app;

ALTER TABLE public.users ENABLE ROW LEVEL SECURITY;
CREATE POLICY users_read ON public.users FOR SELECT TO taskbase_app
    USING (id = public.taskbase_current_user_id()
           OR EXISTS (SELECT 1 FROM public.memberships m WHERE m.user_id = users.id)
           OR (SELECT public.taskbase_acting_user_sees_everyone()));
CREATE POLICY users_provision ON public.users FOR INSERT TO taskbase_app
    WITH CHECK ((SELECT public.taskbase_acting_operator()));
CREATE POLICY users_change ON public.users FOR UPDATE TO taskbase_app
    USING ((SELECT public.taskbase_acting_operator()))
    WITH CHECK ((SELECT public.taskbase_acting_operator()));

-- migrate:down
DROP POLICY users_change ON public.users;
DROP POLICY users_provision ON public.users;
DROP POLICY users_read ON public.users;
ALTER TABLE public.users DISABLE ROW LEVEL SECURITY;
GRANT DELETE ON public.users TO taskbase_app;
DROP FUNCTION public.taskbase_user_id_for_email(text);
DROP FUNCTION public.taskbase_acting_user_sees_everyone();
DROP FUNCTION public.taskbase_acting_operator();
ALTER TABLE public.users DROP COLUMN is_operator;
