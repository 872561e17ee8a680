-- A change takes its sequence from the team's counter in its own transaction: no change is
-- logged into a gap behind the counter later.
--
-- 0023 refused a change logged past the team's counter (`last_change < sequence`, checked at
-- commit), not one below it. Typed with the runtime login, a member could advance the counter
-- by five in one transaction, leaving a gap, and in a later one log a change into it: a
-- "deleted" entry for a task that still exists, committed at sequence 3 after 6 had been
-- issued. Watchers already past 3 never saw it; anyone resuming from 2 later did, so two
-- readers of one log disagreed about what happened.
--
-- Now the counter row also remembers where the change sequences of the transaction that last
-- advanced it start (`changed_from`, beside 0028's `numbered_from`, written by the same row
-- trigger and by nothing else), and the check at commit refuses a change whose sequence its own
-- transaction did not take: the counter must have been advanced in this transaction and the
-- sequence must lie above where it started. Roles that own the schema (a data-only restore
-- writes the log under the sequences it had) are held to 0023's bound only, as in 0028.
--
-- The check reads the counter row 0023's already read: the cost is a comparison.

-- migrate:up
ALTER TABLE public.task_counters ADD COLUMN changed_from bigint;

COMMENT ON COLUMN public.task_counters.changed_from IS
    'last_change before the first advance by the transaction numbered_in; written by the row trigger only';

CREATE OR REPLACE FUNCTION public.taskbase_counters_only_advance() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        IF NEW.team_id <> OLD.team_id
           OR NEW.last_number < OLD.last_number OR NEW.last_number - OLD.last_number >= 2147483648
           OR NEW.last_change < OLD.last_change OR NEW.last_change - OLD.last_change >= 2147483648 THEN
            RAISE EXCEPTION 'the task counters of team % only advance, by less than 2^31 at a time', OLD.team_id
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'task numbers and change sequences are taken by the writes that use them';
        END IF;
        IF OLD.numbered_in IS DISTINCT FROM pg_current_xact_id() OR OLD.numbered_at IS DISTINCT FROM transaction_timestamp() THEN
            NEW.numbered_from := OLD.last_number;
            NEW.changed_from := OLD.last_change;
            NEW.numbered_in := pg_current_xact_id();
            NEW.numbered_at := transaction_timestamp();
        ELSE
            NEW.numbered_from := OLD.numbered_from;
            NEW.changed_from := OLD.changed_from;
            NEW.numbered_in := OLD.numbered_in;
            NEW.numbered_at := OLD.numbered_at;
        END IF;
        RETURN NEW;
    END
    $$;

CREATE OR REPLACE FUNCTION public.taskbase_change_taken_from_counter() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        counter record;
        -- Who runs the statement, as in 0028: the role SET ROLE chose, else the login. Those who
        -- own the schema may log under sequences taken before (a data-only restore).
        invoker name := CASE WHEN current_setting('role') = 'none' THEN session_user ELSE current_setting('role')::name END;
        restoring boolean := pg_has_role(invoker, 'taskbase_owner', 'USAGE');
    BEGIN
        SELECT c.last_change, c.changed_from,
               c.numbered_in = pg_current_xact_id() AND c.numbered_at = transaction_timestamp() AS advanced_here
          INTO counter
          FROM public.task_counters c WHERE c.team_id = NEW.team_id;
        -- A data-only restore (pg_dump writes task_changes before task_counters, each table in a
        -- transaction of its own) logs changes of teams whose counters come later: as 0023 did,
        -- a missing counter stops only those who do not own the schema.
        IF NOT FOUND AND restoring THEN
            RETURN NULL;
        END IF;
        IF NOT FOUND OR counter.last_change < NEW.sequence THEN
            RAISE EXCEPTION 'change % of team % was logged without taking its sequence from the team''s counter', NEW.sequence, NEW.team_id
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'advance task_counters.last_change in the same transaction as the change it numbers';
        END IF;
        IF NOT restoring AND (NOT counter.advanced_here OR NEW.sequence <= counter.changed_from) THEN
            RAISE EXCEPTION 'change % of team % takes a sequence this transaction did not take from the team''s counter', NEW.sequence, NEW.team_id
                USING ERRCODE = 'insufficient_privilege',
                      DETAIL = CASE WHEN counter.advanced_here AND counter.last_change > counter.changed_from
                                    THEN format('this transaction took sequences %s to %s', counter.changed_from + 1, counter.last_change)
                                    ELSE 'this transaction has taken no sequence from the team''s counter' END,
                      HINT = 'advance task_counters.last_change in the same transaction as the change it numbers; a sequence once taken is never used again';
        END IF;
        RETURN NULL;
    END
    $$;

-- migrate:down
CREATE OR REPLACE FUNCTION public.taskbase_change_taken_from_counter() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM public.task_counters c WHERE c.team_id = NEW.team_id AND c.last_change < NEW.sequence) THEN
            RAISE EXCEPTION 'change % of team % was logged without taking its sequence from the team''s counter', NEW.sequence, NEW.team_id
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'advance task_counters.last_change in the same transaction as the change it numbers';
        END IF;
        RETURN NULL;
    END
    $$;

CREATE OR REPLACE FUNCTION public.taskbase_counters_only_advance() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        IF NEW.team_id <> OLD.team_id
           OR NEW.last_number < OLD.last_number OR NEW.last_number - OLD.last_number >= 2147483648
           OR NEW.last_change < OLD.last_change OR NEW.last_change - OLD.last_change >= 2147483648 THEN
            RAISE EXCEPTION 'the task counters of team % only advance, by less than 2^31 at a time', OLD.team_id
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'task numbers and change sequences are taken by the writes that use them';
        END IF;
        IF OLD.numbered_in IS DISTINCT FROM pg_current_xact_id() OR OLD.numbered_at IS DISTINCT FROM transaction_timestamp() THEN
            NEW.numbered_from := OLD.last_number;
            NEW.numbered_in := pg_current_xact_id();
            NEW.numbered_at := transaction_timestamp();
        ELSE
            NEW.numbered_from := OLD.numbered_from;
            NEW.numbered_in := OLD.numbered_in;
            NEW.numbered_at := OLD.numbered_at;
        END IF;
        RETURN NEW;
    END
    $$;

ALTER TABLE public.task_counters DROP COLUMN changed_from;
