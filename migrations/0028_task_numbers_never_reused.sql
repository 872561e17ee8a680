-- A task's number is one its own transaction took from the team's counter: never a deleted
-- task's number again.
--
-- 0023 refused a task numbered past the team's counter, but not one below it. Typed with the
-- runtime login, a member (who may delete and create tasks) could delete a task and insert
-- another under its number without advancing the counter. The new task had no creation in
-- history or the change log and showed the deleted task's history, kept by number, with the
-- names of whoever had written it: another member's work attributed to a task they never saw.
--
-- Now the counter row remembers, for the transaction that last advanced it, where its numbers
-- started (`numbered_from`, the counter before that transaction's first advance) and which
-- transaction that was (`numbered_in`, its id, and `numbered_at`, its start time: an id alone
-- can come again after a restore into another cluster, whose transaction ids run behind; a
-- member burning ids up to a restored one was then taken for the transaction that had taken
-- the numbers). A BEFORE UPDATE trigger writes them on every change of the row, whatever the
-- statement set, so no one forges them; the statement trigger on tasks
-- inserts refuses a task whose number this transaction did not take: the counter must have
-- been advanced in this transaction, and every new number must lie above where it started.
-- Within the one transaction that took a number, a task deleted and inserted again under it
-- stays possible; no other transaction has seen that number yet. Roles that own the schema
-- (taskbase_owner's members, superusers) are not held to it, only to 0023's bound: they could
-- drop the trigger, and a data-only restore (pg_restore --data-only) writes the counters
-- first and then every task under the numbers it had; the runtime role, however it is reached
-- (its own login, or SET ROLE from any other), is.
--
-- The check reads what 0023's already read, one row per team of the statement: the cost is a
-- comparison. Probing history for every new task's number, the other way to close it,
-- cost a 100,000-task import about 9%.

-- migrate:up
ALTER TABLE public.task_counters
    ADD COLUMN numbered_from bigint,
    ADD COLUMN numbered_in xid8,
    ADD COLUMN numbered_at timestamptz;

COMMENT ON COLUMN public.task_counters.numbered_from IS
    'last_number before the first advance by the transaction numbered_in; written by the row trigger only';
COMMENT ON COLUMN public.task_counters.numbered_in IS
    'the transaction that last advanced these counters; written by the row trigger only';
COMMENT ON COLUMN public.task_counters.numbered_at IS
    'when the transaction numbered_in started; written by the row trigger only';

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

CREATE OR REPLACE FUNCTION public.taskbase_tasks_numbered_by_counter() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        wrong record;
        -- Who runs the statement (this function runs as its owner): the role SET ROLE chose, else
        -- the login. Those who own the schema (operators restoring data, a superuser) may insert
        -- under numbers taken before, as a data-only restore does; they could drop this trigger.
        invoker name := CASE WHEN current_setting('role') = 'none' THEN session_user ELSE current_setting('role')::name END;
        restoring boolean := pg_has_role(invoker, 'taskbase_owner', 'USAGE');
    BEGIN
        SELECT i.team_id, i.low, i.top, c.last_number, c.numbered_from,
               c.numbered_in = pg_current_xact_id() AND c.numbered_at = transaction_timestamp() AND c.last_number > c.numbered_from AS taken_here
          INTO wrong
          FROM (SELECT n.team_id, min(n.number) AS low, max(n.number) AS top FROM inserted n GROUP BY n.team_id) i
          JOIN public.task_counters c ON c.team_id = i.team_id
         WHERE i.top > c.last_number
            OR NOT restoring AND (c.numbered_in IS DISTINCT FROM pg_current_xact_id() OR c.numbered_at IS DISTINCT FROM transaction_timestamp()
                                  OR i.low <= c.numbered_from)
         LIMIT 1;
        IF NOT FOUND THEN
            RETURN NULL;
        END IF;
        IF wrong.top > wrong.last_number THEN
            RAISE EXCEPTION 'task number % of team % is past the team''s counter (%)', wrong.top, wrong.team_id, wrong.last_number
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'a task takes its number by advancing task_counters.last_number in the statement that inserts it';
        END IF;
        RAISE EXCEPTION 'task number % of team % was not taken from the team''s counter in this transaction', wrong.low, wrong.team_id
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = CASE WHEN wrong.taken_here
                                THEN format('this transaction took numbers %s to %s', wrong.numbered_from + 1, wrong.last_number)
                                ELSE 'this transaction has taken no number from the team''s counter' END,
                  HINT = 'a task takes its number by advancing task_counters.last_number in the statement that inserts it; a number once taken is never used again';
    END
    $$;

-- migrate:down
CREATE OR REPLACE FUNCTION public.taskbase_tasks_numbered_by_counter() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        squatted record;
    BEGIN
        SELECT i.team_id, i.top, c.last_number INTO squatted
          FROM (SELECT n.team_id, max(n.number) AS top FROM inserted n GROUP BY n.team_id) i
          JOIN public.task_counters c ON c.team_id = i.team_id
         WHERE i.top > c.last_number
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'task number % of team % is past the team''s counter (%)', squatted.top, squatted.team_id, squatted.last_number
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'a task takes its number by advancing task_counters.last_number in the statement that inserts it';
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
        RETURN NEW;
    END
    $$;

ALTER TABLE public.task_counters
    DROP COLUMN numbered_at,
    DROP COLUMN numbered_in,
    DROP COLUMN numbered_from;
