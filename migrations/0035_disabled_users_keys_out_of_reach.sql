-- A disabled user's idempotency keys and tokens are out of reach of the runtime login too.
--
-- A disabled user reaches nothing: every policy over team data passes through
-- taskbase_team_ids(), which leaves disabled users out. The policies on idempotency_keys (0029)
-- and on making a token (0031) compared only the acting user's id, so with the runtime login,
-- acting as a disabled user, one could still read the answers kept under their keys (task data
-- from when they were a member) and change them, and insert a token row in their name.
--
-- Now both compare with the acting user's id only while that user is enabled
-- (taskbase_enabled_user_id(), SECURITY DEFINER: it reads users past their row security).
-- The programs refuse first: a disabled user's requests fail before any key is claimed, and
-- `taskctl token create` for a disabled user is refused by the service ("enable the account
-- first"), as the database now would refuse its row.

-- migrate:up
CREATE FUNCTION public.taskbase_enabled_user_id() RETURNS bigint
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN (SELECT u.id FROM public.users u WHERE u.id = public.taskbase_current_user_id() AND NOT u.disabled);
    END
    $$;
REVOKE ALL ON FUNCTION public.taskbase_enabled_user_id() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.taskbase_enabled_user_id() TO taskbase_app;

ALTER POLICY idempotency_keys_own ON public.idempotency_keys
    USING (user_id = (SELECT public.taskbase_enabled_user_id()))
    WITH CHECK (user_id = (SELECT public.taskbase_enabled_user_id()));
ALTER POLICY api_tokens_make_own ON public.api_tokens
    WITH CHECK (user_id = (SELECT public.taskbase_enabled_user_id()));

-- migrate:down
ALTER POLICY api_tokens_make_own ON public.api_tokens
    WITH CHECK (user_id = (SELECT public.taskbase_current_user_id()));
ALTER POLICY idempotency_keys_own ON public.idempotency_keys
    USING (user_id = (SELECT public.taskbase_current_user_id()))
    WITH CHECK (user_id = (SELECT public.taskbase_current_user_id()));
DROP FUNCTION public.taskbase_enabled_user_id();
