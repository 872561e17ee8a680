-- A request whose claim of its idempotency key was taken over by a retry writes nothing.
--
-- 0036 gave a running request's claim a lease: a claim not renewed for 20 s (by default) is
-- taken for abandoned, and a retry takes it over (a new claimed_at) and runs the request. But a
-- request whose renewals stopped is not always gone: its process was stopped (SIGSTOP, a paused
-- VM, a long stall) or its pool had no connection free for its renewals for longer than the
-- lease, and its request went on afterwards. 0030's trigger found the claim by user and key
-- only, so the stale run's writes were noted on the retry's claim and committed: the request
-- took effect twice (two tasks, two tokens), which is what Idempotency-Key promises never
-- happens. Before 0036 the window was the quarter of an hour after which a claim was abandoned.
--
-- Now a run names the claim it holds: taskserve sets `taskbase.idempotency_claimed_at` (the
-- claim's claimed_at, as text, transaction local, beside `taskbase.idempotency_key`) in every
-- transaction its request runs, and the trigger refuses the write, SQLSTATE TB409, when the
-- user's claim of that key is not the run's: another claimed_at (taken over by another run), or
-- no claim at all (settled as failed, or past its lifetime). The whole transaction rolls back;
-- taskserve answers the stale request 409 `idempotency_key_in_use` (the retry that took it over
-- answers for it). TB409 is of a class of its own: not 42501 (a refusal of the caller, or an
-- integrity check), and not one the store retries (40001, 40P01).
--
-- The check costs nothing on the run's first write: the UPDATE that notes its effect also
-- compares claimed_at, and locks the claim until the transaction ends, so a takeover waits for
-- it and then finds the claim taken effect (0030). Only a later transaction of the same request
-- (the claim already noted, or answered) reads the claim again, locking it FOR SHARE for the
-- same reason. Still once a transaction, as 0030: the first row written decides.
--
-- Unchanged: a write with no key set (taskctl, taskimport, a data-only restore as the schema's
-- owner) never calls the trigger (the WHEN of 0030's triggers); a key set without a claim time
-- (a taskserve older than this migration, still running during an upgrade) is noted as 0030
-- did, with no fence: that process has none to give.

-- migrate:up
CREATE OR REPLACE FUNCTION public.taskbase_note_idempotent_effect() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        -- The claim the run holds; null when the writer named none (an older taskserve).
        run_claim timestamptz := NULLIF(pg_catalog.current_setting('taskbase.idempotency_claimed_at', true), '')::timestamptz;
        held_claim timestamptz;
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
           AND took_effect_at IS NULL
           AND (run_claim IS NULL OR claimed_at = run_claim);
        IF NOT FOUND AND run_claim IS NOT NULL THEN
            -- Noted already (an earlier transaction of the run), or not the run's claim.
            SELECT k.claimed_at INTO held_claim
              FROM public.idempotency_keys k
             WHERE k.user_id = public.taskbase_current_user_id()
               AND k.key = pg_catalog.current_setting('taskbase.idempotency_key', true)
               FOR SHARE;
            IF held_claim IS DISTINCT FROM run_claim THEN
                RAISE EXCEPTION 'the claim of this idempotency key was taken over by another attempt of the request, or is gone: this run may write nothing'
                    USING ERRCODE = 'TB409';
            END IF;
        END IF;
        -- Noted once a transaction: the statements after this one queue no event (0030's WHEN).
        PERFORM pg_catalog.set_config('taskbase.idempotency_noted', 'yes', true);
        RETURN NULL;
    END
    $$;

-- migrate:down
CREATE OR REPLACE FUNCTION public.taskbase_note_idempotent_effect() RETURNS trigger
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
