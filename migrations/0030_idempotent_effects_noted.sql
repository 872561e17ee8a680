-- An idempotency key whose request changed something is never freed for another run.
--
-- 0029 kept a key's claim, then the answer once the request succeeded; a request that failed
-- deleted its claim, so that a corrected retry would run. But a request can fail after its
-- change committed: the connection to the database lost while its COMMIT was on the way (the
-- server answers 503, and the commit may well have happened), or its process stopped between
-- the commit and the keeping of the answer (the claim, never answered, was taken for abandoned
-- after a quarter of an hour). Either way the retry ran again: two tasks, two teams, two tokens
-- where the client asked for one.
--
-- Now the request's transaction notes it on the key itself: taskserve names the key in the
-- session setup of every transaction its request runs (`taskbase.idempotency_key`, transaction
-- local), and a row trigger on each table a POST writes (teams, memberships, tasks,
-- api_tokens) stamps `took_effect_at` on the acting user's claim of that key, in the same
-- transaction as the change: the two commit together or not at all. A claim so stamped is
-- never freed: a failure stamps `failed_at` instead of deleting it, and one abandoned is not
-- claimed again; a retry is told its first attempt took effect and its answer was lost.
--
-- The trigger runs with the writer's rights (row security shows the runtime role its own
-- keys only), and only when the setting is there and the transaction has not noted it yet
-- (`taskbase.idempotency_noted`): a write with no key set costs the WHEN test. A statement
-- trigger would be one call a statement, but it fires for a statement that wrote no row, and a
-- refused creation's statement, which inserts nothing and commits, would have kept its key.

-- migrate:up
ALTER TABLE public.idempotency_keys ADD COLUMN took_effect_at timestamptz;
-- When such a request ended without an answer kept (it failed after its change).
ALTER TABLE public.idempotency_keys ADD COLUMN failed_at timestamptz;

CREATE FUNCTION public.taskbase_note_idempotent_effect() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        -- A statement's row events are all queued before the first fires: the rows after the
        -- first of a bulk write end here.
        IF pg_catalog.current_setting('taskbase.idempotency_noted', true) = 'yes' THEN
            RETURN NULL;
        END IF;
        UPDATE public.idempotency_keys
           SET took_effect_at = pg_catalog.statement_timestamp()
         WHERE user_id = public.taskbase_current_user_id()
           AND key = pg_catalog.current_setting('taskbase.idempotency_key', true)
           AND answered_at IS NULL
           AND took_effect_at IS NULL;
        -- Noted once a transaction: the statements after this one queue no event (the WHEN below).
        PERFORM pg_catalog.set_config('taskbase.idempotency_noted', 'yes', true);
        RETURN NULL;
    END
    $$;

-- Row triggers, so that only a row written counts: a statement that writes nothing (a task's
-- creation whose access check found the actor a viewer inserts no row, and commits) notes
-- nothing. Each fires only in a keyed request, and does its work once a transaction; any other
-- row written costs the WHEN's two settings.
CREATE TRIGGER teams_note_idempotent_effect AFTER INSERT OR UPDATE OR DELETE ON public.teams
    FOR EACH ROW WHEN (pg_catalog.current_setting('taskbase.idempotency_key', true) <> ''
                       AND pg_catalog.current_setting('taskbase.idempotency_noted', true) IS DISTINCT FROM 'yes')
    EXECUTE FUNCTION public.taskbase_note_idempotent_effect();
CREATE TRIGGER memberships_note_idempotent_effect AFTER INSERT OR UPDATE OR DELETE ON public.memberships
    FOR EACH ROW WHEN (pg_catalog.current_setting('taskbase.idempotency_key', true) <> ''
                       AND pg_catalog.current_setting('taskbase.idempotency_noted', true) IS DISTINCT FROM 'yes')
    EXECUTE FUNCTION public.taskbase_note_idempotent_effect();
CREATE TRIGGER tasks_note_idempotent_effect AFTER INSERT OR UPDATE OR DELETE ON public.tasks
    FOR EACH ROW WHEN (pg_catalog.current_setting('taskbase.idempotency_key', true) <> ''
                       AND pg_catalog.current_setting('taskbase.idempotency_noted', true) IS DISTINCT FROM 'yes')
    EXECUTE FUNCTION public.taskbase_note_idempotent_effect();
CREATE TRIGGER api_tokens_note_idempotent_effect AFTER INSERT OR UPDATE OR DELETE ON public.api_tokens
    FOR EACH ROW WHEN (pg_catalog.current_setting('taskbase.idempotency_key', true) <> ''
                       AND pg_catalog.current_setting('taskbase.idempotency_noted', true) IS DISTINCT FROM 'yes')
    EXECUTE FUNCTION public.taskbase_note_idempotent_effect();

-- migrate:down
DROP TRIGGER api_tokens_note_idempotent_effect ON public.api_tokens;
DROP TRIGGER tasks_note_idempotent_effect ON public.tasks;
DROP TRIGGER memberships_note_idempotent_effect ON public.memberships;
DROP TRIGGER teams_note_idempotent_effect ON public.teams;
DROP FUNCTION public.taskbase_note_idempotent_effect();
ALTER TABLE public.idempotency_keys DROP COLUMN failed_at;
ALTER TABLE public.idempotency_keys DROP COLUMN took_effect_at;
