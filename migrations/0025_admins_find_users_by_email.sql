-- Admins and owners no longer see every user: they find and add one by the exact email they know.
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
--
-- Adding a member had the same hole one step removed: `memberships_add` let an admin insert a
-- row for any user id, who then shared a team with them and was readable (insert ids one by one,
-- read `users`, roll back). A new row's user must now be one the actor already sees, or the one
-- whose address the actor names for this transaction in `taskbase.member_email`
-- (`taskbase_may_add_member()`): the store sets it to the address it adds. The policy's first
-- condition already requires an admin of the team.
--
-- Every address is compared in the database's own (deterministic) collation, named: PL/pgSQL
-- compares with the caller's collation, and a nondeterministic one the runtime role may create in
-- pg_temp (case-, accent- and punctuation-blind) made an "exact" lookup match other addresses.
-- The default collation is also the unique index's on lower(email), so lookups still use it. `taskbase_user_id_for_email`
-- (0009, the session setup) gets the same. And `users` keeps no statistics of its names: the
-- planner's histogram of `email` showed through `EXPLAIN` row estimates under row security.

-- migrate:up
CREATE OR REPLACE FUNCTION public.taskbase_acting_user_sees_everyone() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN public.taskbase_acting_operator();
    END
    $$;

CREATE OR REPLACE FUNCTION public.taskbase_user_id_for_email(address text) RETURNS bigint
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN (SELECT u.id FROM public.users u WHERE pg_catalog.lower(u.email) = address COLLATE "default");
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
        RETURN QUERY SELECT u.* FROM public.users u WHERE pg_catalog.lower(u.email) = address COLLATE "default";
    END
    $$;

-- Whether the acting user may make `member` a member of a team they administer: one they see
-- (the `users` policy: themself, a team mate, anyone for an operator) or the user whose
-- lowercased address `taskbase.member_email` names. A function, as the `users` policy reads
-- memberships: the insert policy cannot read `users` through it (infinite recursion).
CREATE FUNCTION public.taskbase_may_add_member(member bigint) RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN member = public.taskbase_current_user_id()
            OR EXISTS (SELECT 1 FROM public.memberships m
                        WHERE m.user_id = member AND m.team_id = ANY (public.taskbase_team_ids('viewer')))
            OR public.taskbase_acting_operator()
            OR (pg_catalog.cardinality(public.taskbase_team_ids('admin')) > 0
                AND member = (SELECT u.id FROM public.users u
                               WHERE pg_catalog.lower(u.email) = pg_catalog.current_setting('taskbase.member_email', true) COLLATE "default"));
    END
    $$;

REVOKE ALL ON FUNCTION public.taskbase_user_by_email(text), public.taskbase_may_add_member(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.taskbase_user_by_email(text), public.taskbase_may_add_member(bigint) TO taskbase_app;

ALTER POLICY memberships_add ON public.memberships
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('admin'))::bigint[])
                AND (role <> 'owner' OR team_id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[]))
                AND public.taskbase_may_add_member(user_id));

ALTER TABLE public.users ALTER COLUMN email SET STATISTICS 0, ALTER COLUMN display_name SET STATISTICS 0;
ALTER INDEX public.users_email_key ALTER COLUMN 1 SET STATISTICS 0;

-- migrate:down
ALTER INDEX public.users_email_key ALTER COLUMN 1 SET STATISTICS -1;
ALTER TABLE public.users ALTER COLUMN email SET STATISTICS -1, ALTER COLUMN display_name SET STATISTICS -1;
ALTER POLICY memberships_add ON public.memberships
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('admin'))::bigint[])
                AND (role <> 'owner' OR team_id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[])));
DROP FUNCTION public.taskbase_may_add_member(bigint);
DROP FUNCTION public.taskbase_user_by_email(text);
CREATE OR REPLACE FUNCTION public.taskbase_user_id_for_email(address text) RETURNS bigint
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN (SELECT u.id FROM public.users u WHERE lower(u.email) = address);
    END
    $$;
CREATE OR REPLACE FUNCTION public.taskbase_acting_user_sees_everyone() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN public.taskbase_acting_operator() OR cardinality(public.taskbase_team_ids('admin')) > 0;
    END
    $$;
