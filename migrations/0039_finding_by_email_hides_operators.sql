-- Finding a user by their address no longer tells whether they are an operator.
--
-- `taskbase_user_by_email(address)` (0025, SECURITY DEFINER) lets an enabled admin or owner of
-- any team (anyone may make one) find a user outside their teams by the exact address they
-- know, to add them. It returned the whole `users` row, `is_operator` too: with the runtime
-- login, or any caller of the function, an admin learned which known addresses belong to
-- operators, whom an attacker would pick first. Adding a member needs the id, address, name,
-- creation time and disabled flag, never the operator flag (no caller reads it), so the
-- function now answers `is_operator` false for everyone. The row keeps the shape of `users`
-- (the flag still present), so that programs built before this migration, which select every
-- column of `users` from it, keep adding members by email. Whom the `users` policy already
-- shows the caller (themself, a team mate, anyone to an operator) they read from `users`, flag
-- and all, as before.

-- migrate:up
CREATE OR REPLACE FUNCTION public.taskbase_user_by_email(address text) RETURNS SETOF public.users
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        found public.users;
    BEGIN
        IF pg_catalog.cardinality(public.taskbase_team_ids('admin')) = 0 THEN
            RETURN;
        END IF;
        FOR found IN SELECT u.* FROM public.users u WHERE pg_catalog.lower(u.email) = address COLLATE "default" LOOP
            found.is_operator := false;
            RETURN NEXT found;
        END LOOP;
    END
    $$;

-- migrate:down
CREATE OR REPLACE FUNCTION public.taskbase_user_by_email(address text) RETURNS SETOF public.users
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
