-- API tokens under row security: the runtime login can no longer re-point, revive, extend or
-- plant a token.
--
-- 0010 gave the runtime role SELECT, INSERT and UPDATE on api_tokens with no row security, since
-- a token is found by its hash before anyone is known. Typed with that login (assumed stolen),
-- with no user set at all:
--   UPDATE api_tokens SET revoked_at = NULL, expires_at = 'infinity' WHERE ...  -- a revoked
--     token, revoked because it leaked, worked again, for ever;
--   UPDATE api_tokens SET user_id = <an operator> WHERE name = 'my token'  -- a token whose
--     secret one knows now acted as the operator, who may mint tokens for anyone over the API;
--   INSERT INTO api_tokens (user_id, ...) VALUES (<anyone>, ...)  -- rows for any user.
-- Such a token outlived the remedy an operator reaches for first, a new database password.
--
-- Now:
--   * UPDATE only of revoked_at and last_used_at (what revocation and the use stamp write); the
--     user, hash, name, prefix and times stay as made;
--   * a row trigger refuses any change of revoked_at once set, and a last_used_at going back,
--     whoever writes (no program does either);
--   * INSERT only of a token of the acting user (the store makes a token as its user);
--   * reading stays open: a token is found by its hash before its user is known. Only a keyed
--     hash is stored (HMAC-SHA-256 under a key the database never sees), so what is read
--     makes no working token; the runtime role still has no DELETE.

-- migrate:up
REVOKE UPDATE ON public.api_tokens FROM taskbase_app;
GRANT UPDATE (revoked_at, last_used_at) ON public.api_tokens TO taskbase_app;

ALTER TABLE public.api_tokens ENABLE ROW LEVEL SECURITY;
CREATE POLICY api_tokens_read ON public.api_tokens FOR SELECT TO taskbase_app USING (true);
CREATE POLICY api_tokens_make_own ON public.api_tokens FOR INSERT TO taskbase_app
    WITH CHECK (user_id = (SELECT public.taskbase_current_user_id()));
CREATE POLICY api_tokens_stamp ON public.api_tokens FOR UPDATE TO taskbase_app USING (true) WITH CHECK (true);

CREATE FUNCTION public.taskbase_tokens_stay_revoked() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        IF OLD.revoked_at IS NOT NULL AND NEW.revoked_at IS DISTINCT FROM OLD.revoked_at THEN
            RAISE EXCEPTION 'token % was revoked at %: a revocation is never undone or moved', OLD.id, OLD.revoked_at
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'make a new token instead';
        END IF;
        IF NEW.last_used_at < OLD.last_used_at OR (OLD.last_used_at IS NOT NULL AND NEW.last_used_at IS NULL) THEN
            RAISE EXCEPTION 'token %''s last use only moves forward', OLD.id
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW;
    END
    $$;

CREATE TRIGGER api_tokens_stay_revoked BEFORE UPDATE ON public.api_tokens
    FOR EACH ROW EXECUTE FUNCTION public.taskbase_tokens_stay_revoked();

-- migrate:down
DROP TRIGGER api_tokens_stay_revoked ON public.api_tokens;
DROP FUNCTION public.taskbase_tokens_stay_revoked();
DROP POLICY api_tokens_stamp ON public.api_tokens;
DROP POLICY api_tokens_make_own ON public.api_tokens;
DROP POLICY api_tokens_read ON public.api_tokens;
ALTER TABLE public.api_tokens DISABLE ROW LEVEL SECURITY;
REVOKE UPDATE (revoked_at, last_used_at) ON public.api_tokens FROM taskbase_app;
GRANT UPDATE ON public.api_tokens TO taskbase_app;
